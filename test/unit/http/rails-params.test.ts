import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { Moment } from '#shared/domain/conversations/schemas.ts';
import { Bool, Id } from '#shared/domain/schemas.ts';
import { queryParams } from '#shared/http/body.ts';
import { type AnySchema, issuesToError, railsParams } from '#shared/validate.ts';
import { at, bodyOf, casesOf, entriesOf, refusedByChatwoot, routeSchemas, type RouteSchema } from '../../support/rails-probes.ts';

// Rails' parameter reading (shared/validate.ts, docs/chatwoot.md#rails-parameters): the rule on its own, then generated
// over the route table: every optional field of every route's body schema, sent `""`, `null`, a numeric string (fields
// that take numbers) and `0` (ids), is read as Rails reads it and never refused, but where Chatwoot refuses too.

const read = (schema: AnySchema, input: unknown) => {
  const result = v.safeParse(schema, railsParams(schema, input));
  return result.success ? { output: result.output as Record<string, unknown> } : { error: issuesToError(result.issues).errors };
};

describe('the rule', () => {
  const S = v.object({
    assignee_id: v.optional(v.nullable(Id)),
    inbox_id: v.optional(Id),
    count: v.optional(v.pipe(v.number(), v.integer())),
    status: v.optional(v.picklist(['open', 'resolved'])),
    name: v.optional(v.string()),
    required: v.optional(v.string(), 'x'),
    flag: v.optional(Bool),
    strict: v.optional(v.boolean()),
    ids: v.optional(v.array(Id)),
    labels: v.optional(v.array(v.string())),
    nested: v.optional(v.object({ team_id: v.optional(v.nullable(Id)), size: v.optional(v.number()) })),
    must: v.pipe(v.string(), v.minLength(1)),
  });

  it('reads blanks as null where the field takes null (clear), else as not given', () => {
    expect(read(S, { must: 'm', assignee_id: '', inbox_id: '', count: null, status: '', strict: '' })).toEqual({
      output: { must: 'm', assignee_id: null, required: 'x' },
    });
    expect(read(S, { must: 'm', assignee_id: null, nested: { team_id: '', size: '' } })).toEqual({
      output: { must: 'm', assignee_id: null, required: 'x', nested: { team_id: null } },
    });
  });

  it('reads an id of 0 as none: null where it clears, else not given', () => {
    expect(read(S, { must: 'm', assignee_id: 0, inbox_id: '0', nested: { team_id: 0 } })).toEqual({
      output: { must: 'm', assignee_id: null, required: 'x', nested: { team_id: null } },
    });
  });

  it('reads numeric strings as numbers, "true"/"false" as booleans, numbers as strings, one value as a list', () => {
    expect(
      read(S, { must: 'm', count: '12', strict: 'false', flag: 'true', name: 42, ids: ['3', 4], labels: 'vip', nested: { size: '1.5' } }),
    ).toEqual({
      output: {
        must: 'm',
        count: 12,
        strict: false,
        flag: true,
        name: '42',
        ids: [3, 4],
        labels: ['vip'],
        required: 'x',
        nested: { size: 1.5 },
      },
    });
  });

  it('leaves out the blank items of a list (a form’s `ids[]=`), keeps what the schema takes as sent', () => {
    expect(read(S, { must: 'm', ids: ['', '5', null], labels: ['a', ''] })).toEqual({
      output: { must: 'm', ids: [5], labels: ['a', ''], required: 'x' },
    });
  });

  it('still refuses what no reading makes valid, and a blank required field', () => {
    expect(read(S, { must: '', count: 'twelve', status: 'closed', inbox_id: -1 }).error).toEqual([
      { field: 'inbox_id', message: expect.any(String), code: 'invalid' },
      { field: 'count', message: expect.any(String), code: 'invalid' },
      { field: 'status', message: expect.any(String), code: 'invalid' },
      { field: 'must', message: 'must not be empty', code: 'required' },
    ]);
    expect(read(S, { must: null }).error).toEqual([{ field: 'must', message: 'is required', code: 'required' }]);
  });

  it('reads only numeric strings a number holds exactly: longer ones stay text, and are refused', () => {
    expect(read(S, { must: 'x', count: '123456789012345' }).output).toMatchObject({ count: 123456789012345 });
    for (const count of ['99999999999999999', `1${'0'.repeat(200)}`]) {
      expect(read(S, { must: 'x', count }).error).toEqual([{ field: 'count', message: expect.any(String), code: 'invalid' }]);
    }
  });

  it('refuses a moment past the year 9999, as a number or its digits (no date to answer with)', () => {
    expect(v.safeParse(Moment, 253_402_300_799).success).toBe(true);
    for (const m of [253_402_300_800, 9_999_999_999_999, '999999999999']) expect(v.safeParse(Moment, m).success).toBe(false);
    expect(read(v.object({ at: Moment }), { at: '9999999999999' }).error).toEqual([
      { field: 'at', message: expect.any(String), code: 'invalid' },
    ]);
  });

  it('reads the query string’s `key[]` and `a[b]` forms as Rails does; plain keys as API Gateway gives them', () => {
    expect(
      queryParams({ rawQueryString: 'labels[]=a&labels[]=b&filter[status]=open&page=2', queryStringParameters: { 'labels[]': 'a,b' } }),
    ).toEqual({ labels: ['a', 'b'], filter: { status: 'open' }, page: '2' });
    expect(queryParams({ rawQueryString: 'inbox_ids%5B%5D=1', queryStringParameters: { 'inbox_ids[]': '1' } })).toEqual({
      inbox_ids: ['1'],
    });
    expect(queryParams({ rawQueryString: 'page=2&q=a', queryStringParameters: { page: '2', q: 'a' } })).toEqual({ page: '2', q: 'a' });
  });
});

// ── generated over the route table ─────────────────────────────────────────────────────────────────

describe('every route’s optional fields', () => {
  let schemas: RouteSchema[] = [];
  beforeAll(async () => {
    schemas = await routeSchemas();
  }, 60_000);

  it('are read as Rails reads them, and refused only where Chatwoot refuses', () => {
    const cases = schemas.flatMap(({ label, body }) => casesOf(label, entriesOf(body) ?? {}));
    // The table covers the service: the generator found the routes with bodies and their fields.
    expect(schemas.length).toBeGreaterThanOrEqual(100);
    expect(cases.length).toBeGreaterThanOrEqual(800);
    const refused: string[] = [];
    const misread: string[] = [];
    for (const { route, path, field, probe } of cases) {
      const name = `${route} ${path.join('.')}=${probe.name}`;
      const schema = schemas.find((s) => s.label === route)!.body;
      const input = bodyOf(path, probe.value);
      const result = v.safeParse(schema, railsParams(schema, input));
      const errors = result.success ? [] : issuesToError(result.issues).errors;
      const mine = errors.filter((e) => e.field === path.join('.') || e.field.startsWith(`${path.join('.')}.`));
      const chatwootRefuses = refusedByChatwoot(name, path.at(-1)!, probe);
      if (mine.length && !chatwootRefuses) refused.push(`${name}: ${mine.map((e) => e.message).join('; ')}`);
      // What the field became, where the rest of the body passed too.
      const readAs = at(railsParams(schema, input), path);
      if (!chatwootRefuses && (probe.name === '""' || probe.name === 'null' || probe.name === '0')) {
        if (readAs !== undefined && readAs !== null && !v.is(field, probe.value)) misread.push(`${name} read as ${JSON.stringify(readAs)}`);
      }
      if (probe.name === 'numeric string' && !v.is(field, probe.value) && typeof readAs !== 'number') {
        misread.push(`${name} read as ${JSON.stringify(readAs)}`);
      }
    }
    expect(refused).toEqual([]);
    expect(misread).toEqual([]);
  });
});
