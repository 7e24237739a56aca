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

export function parseOrThrow<S extends AnySchema>(schema: S, input: unknown, prefix = ''): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (!result.success) throw issuesToError(result.issues, prefix);
  return result.output as v.InferOutput<S>;
}
