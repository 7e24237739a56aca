import * as v from 'valibot';
import { unprocessable, type ErrorEntry } from './errors.ts';

export type AnySchema = v.GenericSchema<unknown, unknown>;

function fieldOf(issue: v.BaseIssue<unknown>, prefix: string): string {
  const parts: string[] = [];
  for (const item of issue.path ?? []) {
    const key = (item as { key?: unknown }).key;
    if (typeof key === 'number') parts.push(`[${key}]`);
    else if (key !== undefined) parts.push(parts.length ? `.${String(key)}` : String(key));
  }
  const path = parts.join('');
  if (!prefix) return path;
  return path ? `${prefix}${path.startsWith('[') ? '' : '.'}${path}` : prefix;
}

function entryOf(issue: v.BaseIssue<unknown>, prefix: string): ErrorEntry {
  const field = fieldOf(issue, prefix);
  if (issue.kind === 'schema' && (issue.input === undefined || issue.input === null) && issue.type !== 'never') {
    return { field, message: 'is required', code: 'required' };
  }
  switch (issue.type) {
    case 'max_bytes':
      return { field, message: `is too long (maximum is ${String(issue.requirement)} bytes)`, code: 'too_long' };
    case 'max_length':
    case 'max_size':
      return { field, message: `is too long (maximum is ${String(issue.requirement)})`, code: 'too_long' };
    case 'min_length':
      return issue.requirement === 1
        ? { field, message: 'must not be empty', code: 'required' }
        : { field, message: `is too short (minimum is ${String(issue.requirement)})`, code: 'too_short' };
    case 'strict_object':
    case 'never':
      return { field, message: 'is not a known field', code: 'unknown' };
    default:
      return { field, message: issue.message, code: 'invalid' };
  }
}

/** Turns valibot issues into the 422 body: one entry per field, first problem wins. */
export function issuesToError(issues: readonly v.BaseIssue<unknown>[], prefix = '') {
  const seen = new Map<string, ErrorEntry>();
  for (const issue of issues) {
    const e = entryOf(issue, prefix);
    if (!seen.has(e.field)) seen.set(e.field, e);
  }
  return unprocessable([...seen.values()]);
}

// ── Rails' parameters ───────────────────────────────────────────────────────────────────────────────
//
// Chatwoot's clients are written against Rails, which casts every parameter by its column: `""` and `null` are nil,
// `"42"` is 42, `"true"` is true, an id of 0 finds nothing. So, by rule for every schema (not field by field), a value
// the schema refuses as sent is read as Rails would read it before validation, and only a value refused in every
// reading is an error:
//  - blank (`null`; `""` but in a text field that may not be null, where Chatwoot's presence checks refuse it) or an
//    id of 0 (a field taking 1 but not 0): `null` where the field takes null ("clear": Chatwoot's `assignee_id: 0`
//    unassigns), else not given where it is optional, else as sent (the error);
//  - a numeric string as the number, `"true"`/`"false"` as the boolean, a number or boolean as its string, one string
//    as a list of one where a list of strings is taken (`labels=a`, as acts-as-taggable reads it).
// Values the schema takes as sent are never changed; unknown keys stay (the object schemas drop them). A strict object
// (a JSON document Chatwoot checks against a JSON schema, such as integration settings) is read as sent.

const NOT_GIVEN = Symbol('not given');
type Wrapped = AnySchema & {
  wrapped?: AnySchema;
  entries?: Record<string, AnySchema>;
  item?: AnySchema;
  options?: unknown;
  key?: string;
  pipe?: readonly { kind: string }[];
};

const unwrap = (schema: AnySchema): Wrapped => {
  let s = schema as Wrapped;
  while (s.wrapped) s = s.wrapped as Wrapped;
  return s;
};
const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isBlank = (x: unknown) => x === '' || x === null;
const accepts = (schema: AnySchema, value: unknown) => v.is(schema, value);

/**
 * The object schema a value is read against: through optional/nullable wrappers, a pipe's later schema (a record
 * checked as an object) and a variant's matching option.
 */
function objectSchemaOf(schema: AnySchema, value: Record<string, unknown>): Wrapped | undefined {
  const s = unwrap(schema);
  // A strict object is a JSON document checked against its schema (integration settings), not columns: read as sent.
  if (s.type === 'strict_object') return undefined;
  if (s.entries) return s;
  if (s.type === 'variant' && Array.isArray(s.options) && s.key) {
    const key = s.key;
    return (s.options as Wrapped[]).find((o) => o.entries?.[key] && accepts(o.entries[key], value[key]));
  }
  for (const step of s.pipe?.slice(1) ?? []) {
    const found = step.kind === 'schema' ? objectSchemaOf(step as AnySchema, value) : undefined;
    if (found) return found;
  }
  return undefined;
}

/** The item schema of a list field (through wrappers, and a union's list option: a list or its JSON). */
function itemSchemaOf(schema: AnySchema): AnySchema | undefined {
  const s = unwrap(schema);
  if (s.type === 'array') return s.item;
  if (s.type === 'union' && Array.isArray(s.options)) return (s.options as AnySchema[]).map(itemSchemaOf).find(Boolean);
  return undefined;
}

/** A text field: its base schema is a string (not an id, number, enum, date or file that also takes strings). */
const takesText = (schema: AnySchema) => unwrap(schema).type === 'string';

function blank(schema: AnySchema, value: unknown): unknown {
  if (accepts(schema, null)) return null;
  if (accepts(schema, undefined)) return NOT_GIVEN;
  return value;
}

function readValue(schema: AnySchema, value: unknown): unknown {
  if (isRecord(value)) {
    const object = objectSchemaOf(schema, value);
    return object ? readObject(object.entries!, value) : value;
  }
  if (Array.isArray(value)) {
    const item = itemSchemaOf(schema);
    if (!item) return value;
    // Rails' forms send `ids[]=` for an empty list: blank items the list refuses are left out.
    return value.flatMap((x) => {
      const read = readValue(item, x);
      return read === NOT_GIVEN || (isBlank(x) && !accepts(item, read)) ? [] : [read];
    });
  }
  if (accepts(schema, value)) return value;
  // Rails casts `""` to nil for ids, numbers, enums, dates and files; a text field keeps it, but for one that may be
  // null (URLs, addresses), where blank is none.
  if (value === null || (value === '' && (!takesText(schema) || accepts(schema, null)))) return blank(schema, value);
  if ((value === 0 || value === '0') && accepts(schema, 1)) return blank(schema, value);
  const readings: unknown[] = [];
  if (typeof value === 'string') {
    // Only what the string says exactly: a number past 2^53 would be stored rounded, or refused by the database.
    if (/^-?\d{1,15}(\.\d{1,15})?$/.test(value.trim())) readings.push(Number(value));
    if (value === 'true' || value === 'false') readings.push(value === 'true');
  } else if (typeof value === 'number' || typeof value === 'boolean') readings.push(String(value));
  const item = itemSchemaOf(schema);
  if (item && typeof value === 'string' && takesText(item)) readings.push([value]);
  return readings.find((r) => accepts(schema, r)) ?? value;
}

function readObject(entries: Record<string, AnySchema>, input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...input };
  for (const [key, schema] of Object.entries(entries)) {
    if (!Object.hasOwn(input, key)) continue;
    const read = readValue(schema, input[key]);
    if (read === NOT_GIVEN) delete out[key];
    else out[key] = read;
  }
  return out;
}

/** `input` as Rails would hand it to a controller validated by `schema` (the rule above); pure. */
export function railsParams(schema: AnySchema, input: unknown): unknown {
  return readValue(schema, input);
}

export function parseOrThrow<S extends AnySchema>(schema: S, input: unknown, prefix = ''): v.InferOutput<S> {
  const config = { abortPipeEarly: true };
  // Input the schema takes as sent is read the same by the rule, so only a refused input pays for the reading.
  let result = v.safeParse(schema, input, config);
  if (!result.success) result = v.safeParse(schema, railsParams(schema, input), config);
  if (!result.success) throw issuesToError(result.issues, prefix);
  return result.output as v.InferOutput<S>;
}

/** A route's body: its schema (for the OpenAPI document) and how it is read (Rails' params, then the schema). */
export interface BodySpec<S extends AnySchema = AnySchema> {
  schema: S;
  parse(input: unknown): v.InferOutput<S>;
}

/**
 * The body a route takes, validated by `schema` (`body: bodyOf(Schema)` in the route's handler options). The route
 * names the parse, not the HTTP chain, so that a route without a body does not carry it (docs/cost.md#cold-start).
 */
export const bodyOf = <S extends AnySchema>(schema: S): BodySpec<S> => ({ schema, parse: (input) => parseOrThrow(schema, input) });
