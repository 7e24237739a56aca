import { unprocessable, type ErrorEntry } from '#shared/errors.ts';

// The storable-value rule, once for every value of every request body (and query string): what the data
// model must not hold is refused with 422 naming the field, before anything is stored. Everything else is
// accepted as sent.
//
// Text:
// - NUL (U+0000): PostgreSQL refuses it in text, so Chatwoot never stores one; neither do we.
// - Lone surrogates (a \uD800–\uDFFF escape without its partner): not Unicode text; they have no UTF-8
//   form, so no store (PostgreSQL, DynamoDB) and no client could hold them.
// - U+FFFE, U+FFFF and other noncharacters, C0 controls, bidi marks, astral characters: valid text that
//   PostgreSQL stores, so accepted. What a queue cannot carry is escaped on the way (shared/codec/queue-text.ts).
//
// Numbers, nesting and names, which DynamoDB and its client cannot store (where Chatwoot's jsonb could):
// - A number beyond ±2^53 (a float like 1e21 included: the client refuses to round it) or nearer to zero
//   than 1e-130 (DynamoDB's range); JSON's 1e400 arrives as Infinity.
// - Nesting deeper than MAX_DEPTH levels (DynamoDB stops at 32, counted from the item, and a body's
//   objects are stored a few levels down).
// - An empty name inside an object (`{"custom_attributes": {"": 1}}`): DynamoDB has no empty attribute names.
//   Top-level names are the request's fields, never stored as names.

/** The deepest a body's values nest (the body itself is level 0). */
export const MAX_DEPTH = 16;
const MAX_NUMBER = Number.MAX_SAFE_INTEGER;
const MIN_MAGNITUDE = 1e-130;

export function numberProblem(n: number): string | undefined {
  if (!Number.isFinite(n) || Math.abs(n) > MAX_NUMBER) return `is out of range (at most ${MAX_NUMBER} either side of zero)`;
  if (n !== 0 && Math.abs(n) < MIN_MAGNITUDE) return 'is out of range (too close to zero)';
  return undefined;
}

/** Characters and unpaired surrogates a stored text must not contain. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what it must find.
const FORBIDDEN = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a text cannot be stored, or undefined when it can. */
export function textProblem(text: string): string | undefined {
  const m = FORBIDDEN.exec(text);
  if (!m) return undefined;
  return m[0] === '\u0000' ? 'must not contain NUL characters (U+0000)' : 'must not contain unpaired surrogates (not valid Unicode text)';
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

// The same path notation as validation errors: `a.b[0].c`.
const join = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key);
const shown = (key: string) => key.replace(FORBIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const MAX_ERRORS = 20;

function collect(value: unknown, path: string, out: ErrorEntry[], depth: number): void {
  if (out.length >= MAX_ERRORS) return;
  if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem) out.push({ field: path, message: problem, code: 'invalid' });
    return;
  }
  if (typeof value === 'number') {
    const problem = numberProblem(value);
    if (problem) out.push({ field: path, message: problem, code: 'invalid' });
    return;
  }
  if (depth >= MAX_DEPTH && (Array.isArray(value) || isPlainObject(value))) {
    out.push({ field: path, message: `is nested too deeply (at most ${MAX_DEPTH} levels)`, code: 'invalid' });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      collect(item, join(path, i), out, depth + 1);
    });
    return;
  }
  // Uploaded files (multipart) and other non-plain values are not text fields.
  if (!isPlainObject(value)) return;
  for (const [key, item] of Object.entries(value)) {
    if (key === '' && depth > 0) {
      out.push({ field: path, message: 'has a field with an empty name', code: 'invalid' });
      continue;
    }
    const problem = textProblem(key);
    if (problem) {
      out.push({ field: join(path, shown(key)), message: `name ${problem}`, code: 'invalid' });
      continue;
    }
    collect(item, join(path, key), out, depth + 1);
  }
}

/** Every value of a parsed request body that breaks the rule, with its path; [] when none. */
export function storableErrors(body: unknown): ErrorEntry[] {
  const out: ErrorEntry[] = [];
  collect(body, '', out, 0);
  return out;
}

/** 422 naming every field that holds a value the data model must not hold. */
export function assertStorable(body: unknown): void {
  const errors = storableErrors(body);
  if (errors.length) throw unprocessable(errors);
}
