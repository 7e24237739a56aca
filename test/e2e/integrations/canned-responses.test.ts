import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, runtime, seedAccount, unique, type SeededAccount, fieldsOf } from '../../support/runtime.ts';
import { searchRank } from '#shared/domain/canned-responses/service.ts';
import { sdk, sdkError } from './sdk.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('canned responses (n8n cannedResponse node, @figuro/chatwoot-sdk)', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  let base: string;
  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    s = await seedAccount();
    other = await seedAccount();
  });

  it('creates (n8n body), lists, searches short code and content best first, updates and deletes', async () => {
    const greeting = await s.admin.api.post(`${s.base}/canned_responses`, { short_code: 'greeting', content: 'Hello! How can we help?' });
    expect(greeting.status).toBe(200);
    expect(greeting.body).toEqual({
      id: expect.any(Number),
      account_id: s.accountId,
      short_code: 'greeting',
      content: 'Hello! How can we help?',
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    const client = sdk(base, s.admin.token);
    const bye = await client.cannedResponses.create({
      accountId: s.accountId,
      data: { short_code: 'bye', content: 'Thanks for the greeting, goodbye' },
    });
    expect(bye).toMatchObject({ short_code: 'bye', account_id: s.accountId });
    const regreet = (
      await s.admin.api.post(`${s.base}/canned_responses`, { canned_response: { short_code: 'Re-Greeting', content: 'Hi again' } })
    ).body;

    const list = await s.agent.api.get(`${s.base}/canned_responses`);
    expect(list.status).toBe(200);
    expect(list.body.map((c: { id: number }) => c.id)).toEqual([greeting.body.id, bye.id, regreet.id]);
    expect(((await client.cannedResponses.list({ accountId: s.accountId })) as unknown[]).length).toBe(3);

    // Starts-with on short code, then contains in short code, then contains in content; case-insensitive.
    const found = await s.agent.api.get(`${s.base}/canned_responses?search=GREET`);
    expect(found.body.map((c: { short_code: string }) => c.short_code)).toEqual(['greeting', 'Re-Greeting', 'bye']);
    expect((await s.agent.api.get(`${s.base}/canned_responses?search=nothing-like-this`)).body).toEqual([]);

    // n8n update sends the changed fields top-level; PUT too.
    const updated = await s.admin.api.patch(`${s.base}/canned_responses/${greeting.body.id}`, { content: 'Hi there' });
    expect(updated.body).toEqual({ ...greeting.body, content: 'Hi there', updated_at: expect.stringMatching(ISO) });
    const renamed = await client.cannedResponses.update({ accountId: s.accountId, id: greeting.body.id, data: { short_code: 'hello' } });
    expect(renamed).toMatchObject({ short_code: 'hello', content: 'Hi there' });
    // The old short code is free again.
    expect((await s.admin.api.post(`${s.base}/canned_responses`, { short_code: 'greeting', content: 'x' })).status).toBe(200);

    const gone = await s.admin.api.delete(`${s.base}/canned_responses/${bye.id}`);
    expect(gone.status).toBe(200);
    expect(gone.text).toBe('');
    expect((await s.agent.api.get(`${s.base}/canned_responses`)).body.some((c: { id: number }) => c.id === bye.id)).toBe(false);
    expectErrorBody(await s.admin.api.delete(`${s.base}/canned_responses/${bye.id}`), 404);
  });

  it('validates and keeps short codes unique in the account', async () => {
    const code = unique('c');
    expect((await s.admin.api.post(`${s.base}/canned_responses`, { short_code: code, content: 'a' })).status).toBe(200);
    expect(
      fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/canned_responses`, { short_code: code, content: 'b' }), 422)),
    ).toEqual({ short_code: 'taken' });
    expect((await other.admin.api.post(`${other.base}/canned_responses`, { short_code: code, content: 'b' })).status).toBe(200);
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/canned_responses`, {}), 422))).toEqual({
      short_code: 'required',
      content: 'required',
    });
    // A number where text is taken is its text, as Rails casts it for a string column: only the blank code is refused.
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/canned_responses`, { short_code: ' ', content: 5 }), 422))).toEqual({
      short_code: 'required',
    });
    expect(
      fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/canned_responses`, { short_code: 'x'.repeat(256), content: 'c' }), 422)),
    ).toEqual({ short_code: 'too_long' });
  });

  it('lets agents read but not write, and hides other accounts', async () => {
    const canned = (await s.admin.api.post(`${s.base}/canned_responses`, { short_code: unique('r'), content: 'r' })).body;
    for (const res of [
      await s.agent.api.post(`${s.base}/canned_responses`, { short_code: 'a', content: 'a' }),
      await s.agent.api.patch(`${s.base}/canned_responses/${canned.id}`, { content: 'b' }),
      await s.agent.api.delete(`${s.base}/canned_responses/${canned.id}`),
    ]) {
      expect(expectErrorBody(res, 403).errors[0].code).toBe('forbidden');
    }
    expect((await sdkError(sdk(base, s.agent.token).cannedResponses.delete({ accountId: s.accountId, id: canned.id }))).status).toBe(403);
    for (const res of [
      await other.admin.api.patch(`${other.base}/canned_responses/${canned.id}`, { content: 'x' }),
      await other.admin.api.delete(`${other.base}/canned_responses/${canned.id}`),
      await other.admin.api.get(`${s.base}/canned_responses`),
    ]) {
      expectErrorBody(res, 404);
    }
    expect((await s.admin.api.get(`${s.base}/canned_responses`)).body.find((c: { id: number }) => c.id === canned.id).content).toBe('r');
  });

  it('ranks search matches as Chatwoot orders them', () => {
    expect(searchRank({ short_code: 'Greet', content: '' }, 'gre')).toBe(1);
    expect(searchRank({ short_code: 'regreet', content: '' }, 'GRE')).toBe(0.5);
    expect(searchRank({ short_code: 'x', content: 'say greet' }, 'greet')).toBe(0.2);
    expect(searchRank({ short_code: 'x', content: 'y' }, 'greet')).toBe(0);
  });
});
