// Chatwoot's filter language (contacts/filter, conversations/filter), pure: parsing, validation and evaluation, no
// I/O. What it follows (docs/chatwoot.md#lists-counts-search-and-filters, docs/chatwoot.md#conditions,
// docs/chatwoot.md#chaining-conditions; Chatwoot's FilterService and lib/filters/filter_keys.yml):
// - a payload is a list of conditions `{attribute_key, filter_operator, values, query_operator}`;
//   `query_operator` joins a condition to the next one, chained left to right with SQL precedence
//   (AND binds tighter than OR: `A OR B AND C` is `A OR (B AND C)`), no grouping; the last one's is ignored;
// - keys are the model's standard keys or the account's custom attribute definitions of that model;
//   each standard key allows its own operators; anything else is a FilterError (422);
// - text compares case-insensitively; contact phone numbers get the leading `+` Chatwoot adds (EvolutionAPI
//   sends them without it; a value that already has one keeps it);
// - contacts compare `equal_to`/`not_equal_to` with the first value only (Chatwoot's Contacts::FilterService),
//   conversations with any of the values (SQL `IN`);
// - a missing field satisfies no condition except `is_not_present` and, for custom attributes,
//   `not_equal_to` (SQL's NULL, and Chatwoot's explicit `OR … IS NULL` there).
//
// Evaluation is three-valued so callers can narrow on a compact projection first: a field the
// projection lacks is UNKNOWN, a condition on it is undefined, and AND/OR combine as Kleene logic.
// `false` on the projection is final, `true` is final, `undefined` means "read the full item and ask again".

export type FilterModel = 'contacts' | 'conversations';

export const OPERATORS = [
  'equal_to',
  'not_equal_to',
  'contains',
  'does_not_contain',
  'is_present',
  'is_not_present',
  'is_greater_than',
  'is_less_than',
  'days_before',
  'starts_with',
] as const;
export type Operator = (typeof OPERATORS)[number];

type DataType = 'text' | 'number' | 'labels' | 'date' | 'boolean';

interface KeySpec {
  type: DataType;
  operators: readonly Operator[];
}

const EQ: readonly Operator[] = ['equal_to', 'not_equal_to'];
const EQ_PRESENT: readonly Operator[] = ['equal_to', 'not_equal_to', 'is_present', 'is_not_present'];
const EQ_CONTAINS: readonly Operator[] = ['equal_to', 'not_equal_to', 'contains', 'does_not_contain'];
const DATES: readonly Operator[] = ['is_greater_than', 'is_less_than', 'days_before'];

/** The standard keys of each model and their operators (lib/filters/filter_keys.yml). */
export const STANDARD_KEYS: Record<FilterModel, Record<string, KeySpec>> = {
  conversations: {
    status: { type: 'text', operators: EQ },
    assignee_id: { type: 'number', operators: EQ_PRESENT },
    inbox_id: { type: 'number', operators: EQ_PRESENT },
    team_id: { type: 'number', operators: EQ_PRESENT },
    priority: { type: 'text', operators: EQ },
    display_id: { type: 'number', operators: EQ_CONTAINS },
    campaign_id: { type: 'number', operators: EQ_PRESENT },
    labels: { type: 'labels', operators: EQ_PRESENT },
    browser_language: { type: 'text', operators: EQ },
    conversation_language: { type: 'text', operators: EQ },
    country_code: { type: 'text', operators: EQ },
    referer: { type: 'text', operators: EQ_CONTAINS },
    created_at: { type: 'date', operators: DATES },
    last_activity_at: { type: 'date', operators: DATES },
    mail_subject: { type: 'text', operators: EQ_CONTAINS },
    time: { type: 'number', operators: ['is_greater_than'] },
    awaiter: { type: 'text', operators: EQ },
    label: { type: 'text', operators: EQ },
  },
  contacts: {
    name: { type: 'text', operators: EQ_CONTAINS },
    phone_number: { type: 'text', operators: [...EQ_CONTAINS, 'starts_with'] },
    email: { type: 'text', operators: EQ_CONTAINS },
    identifier: { type: 'text', operators: EQ },
    country_code: { type: 'text', operators: EQ },
    city: { type: 'text', operators: EQ_CONTAINS },
    company: { type: 'text', operators: EQ_CONTAINS },
    labels: { type: 'labels', operators: EQ_PRESENT },
    created_at: { type: 'date', operators: DATES },
    last_activity_at: { type: 'date', operators: DATES },
    blocked: { type: 'boolean', operators: EQ },
  },
};

/** A custom attribute definition as far as filtering needs it. */
export interface FilterAttribute {
  attribute_key: string;
  attribute_display_type: string;
}

/** Chatwoot's ATTRIBUTE_TYPES: how a custom attribute's display type compares. */
const CUSTOM_TYPES: Record<string, DataType> = {
  text: 'text',
  link: 'text',
  list: 'text',
  number: 'number',
  currency: 'number',
  percent: 'number',
  date: 'date',
  checkbox: 'boolean',
};

export interface Condition {
  /** Position in the payload (for error fields). */
  index: number;
  key: string;
  /** A custom attribute (read from `custom_attributes`), not a standard key. */
  custom: boolean;
  type: DataType;
  operator: Operator;
  /** Normalized values: text lower-cased, phone numbers with `+`, dates as YYYY-MM-DD, numbers as numbers. */
  values: unknown[];
  /** Joins this condition to the next one; null on the last. */
  join: 'AND' | 'OR' | null;
}

/** A payload Chatwoot refuses; its message is Chatwoot's. */
export class FilterError extends Error {
  constructor(
    message: string,
    readonly field: string,
    readonly code: 'invalid' | 'required' = 'invalid',
  ) {
    super(message);
    this.name = 'FilterError';
  }
}

const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

/** Values as a list: an array as is, one scalar as a list of one; `{id}` objects (dashboard pickers) as their id. */
function valueList(raw: unknown): unknown[] {
  const list = Array.isArray(raw) ? raw : raw === undefined || raw === null || raw === '' ? [] : [raw];
  return list.map((v) => (isObject(v) && 'id' in v ? v.id : v)).filter((v) => v !== null && v !== undefined && v !== '');
}

const DAY = 86_400;

/** A date value as YYYY-MM-DD (UTC), or undefined when it is not a date. */
function dateOf(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return new Date(v * 1000).toISOString().slice(0, 10);
  if (typeof v !== 'string' || !v.trim()) return undefined;
  const t = Date.parse(v.trim());
  return Number.isNaN(t) ? undefined : new Date(t).toISOString().slice(0, 10);
}

function normalize(
  model: FilterModel,
  key: string,
  type: DataType,
  operator: Operator,
  raw: unknown[],
  field: string,
  now: number,
): unknown[] {
  const bad = () => new FilterError(`Invalid value. The values provided for ${key} are invalid`, field);
  switch (operator) {
    case 'is_present':
    case 'is_not_present':
      return [];
    case 'days_before': {
      const n = Number(raw[0]);
      if (!Number.isFinite(n)) throw bad();
      return [new Date((now - Math.trunc(n) * DAY) * 1000).toISOString().slice(0, 10)];
    }
    case 'is_greater_than':
    case 'is_less_than': {
      if (type === 'date') {
        const d = dateOf(raw[0]);
        if (!d) throw bad();
        return [d];
      }
      if (type === 'number') {
        const n = Number(raw[0]);
        if (!Number.isFinite(n)) throw bad();
        return [n];
      }
      return [String(raw[0]).toLowerCase()];
    }
    case 'contains':
    case 'does_not_contain':
      // Chatwoot trims each value and matches %value% ignoring case.
      return raw.map((v) => String(v).trim().toLowerCase());
    default: {
      // Contacts compare with the first value only (Chatwoot's Contacts::FilterService); status `all` is every status.
      const list = model === 'contacts' ? raw.slice(0, 1) : raw;
      if (model === 'conversations' && key === 'status' && list.some((v) => String(v).toLowerCase() === 'all')) {
        return ['open', 'resolved', 'pending', 'snoozed'];
      }
      return list.map((v) => {
        if (model === 'contacts' && key === 'phone_number') {
          const s = String(v).trim();
          return s.startsWith('+') ? s : `+${s}`;
        }
        if (type === 'date') return dateOf(v) ?? String(v).toLowerCase();
        if (type === 'boolean') return String(v).toLowerCase();
        return typeof v === 'string'
          ? v.toLowerCase()
          : typeof v === 'number' || typeof v === 'boolean'
            ? String(v).toLowerCase()
            : JSON.stringify(v);
      });
    }
  }
}

/**
 * Parses and validates a filter payload. `attributes` are the account's custom attribute definitions
 * of the model (contact attributes for contacts, conversation attributes for conversations).
 * `now` (Unix seconds) fixes `days_before`.
 */
export function parseFilter(model: FilterModel, payload: unknown, attributes: FilterAttribute[], now: number): Condition[] {
  // Chatwoot's filter services iterate `params[:payload]` unguarded: without one they fail; a client error here.
  if (payload === undefined || payload === null) throw new FilterError('payload is required', 'payload', 'required');
  if (!Array.isArray(payload)) throw new FilterError('payload must be an array of conditions', 'payload');
  const standard = STANDARD_KEYS[model];
  const custom = new Map(attributes.map((a) => [a.attribute_key, a]));
  return payload
    .map((raw, index): Condition => {
      const field = `payload[${index}]`;
      if (!isObject(raw)) throw new FilterError('Each condition must be an object', field);
      const rawKey = raw.attribute_key ?? '';
      // An object or list (a query string's `payload[][attribute_key][x]=…`) names no attribute.
      if (typeof rawKey === 'object') throw new FilterError('attribute_key must be a string', `${field}.attribute_key`);
      const key = String(rawKey);
      const spec = Object.hasOwn(standard, key) ? standard[key] : undefined;
      const def = spec ? undefined : custom.get(key);
      if (!spec && !def) {
        throw new FilterError(
          `Invalid attribute key - [${key}]. The key should be one of [${Object.keys(standard).join(',')}] or a custom attribute defined in the account.`,
          `${field}.attribute_key`,
        );
      }
      const operator = raw.filter_operator;
      const allowed: readonly Operator[] = spec ? spec.operators : OPERATORS;
      if (typeof operator !== 'string' || !(allowed as readonly string[]).includes(operator)) {
        throw new FilterError(`Invalid operator. The allowed operators for ${key} are [${allowed.join(',')}].`, `${field}.filter_operator`);
      }
      const op = operator as Operator;
      const values = valueList(raw.values);
      if (op !== 'is_present' && op !== 'is_not_present' && !values.length) {
        throw new FilterError(`Invalid value. The values provided for ${key} are invalid`, `${field}.values`);
      }
      const q = raw.query_operator;
      let join: Condition['join'] = null;
      if (q !== undefined && q !== null && q !== '') {
        const upper = typeof q === 'string' ? q.toUpperCase() : '';
        if (upper !== 'AND' && upper !== 'OR')
          throw new FilterError('Query operator must be either "AND" or "OR".', `${field}.query_operator`);
        join = upper;
      }
      const type = spec ? spec.type : (CUSTOM_TYPES[def!.attribute_display_type] ?? 'text');
      return {
        index,
        key,
        custom: !spec,
        type,
        operator: op,
        values: normalize(model, key, type, op, values, `${field}.values`, now),
        join,
      };
    })
    .map((c, i, all) => {
      // A condition without an operator to the next one is ANDed (the last one's operator is ignored).
      if (i === all.length - 1) return { ...c, join: null };
      return c.join ? c : { ...c, join: 'AND' };
    });
}

/** The field a projection does not hold: conditions on it evaluate to undefined. */
export const UNKNOWN: unique symbol = Symbol('unknown');
export type FieldValue = unknown;

/** Reads a condition's field from the thing filtered: the value, null/undefined when absent, or UNKNOWN. */
export type Reader = (c: Condition) => FieldValue;

const absent = (v: unknown) => v === null || v === undefined || (Array.isArray(v) && !v.length);

function comparable(type: DataType, v: unknown): string | number | undefined {
  if (absent(v)) return undefined;
  switch (type) {
    case 'date':
      return dateOf(v);
    case 'number': {
      const n = typeof v === 'number' ? v : Number(v);
      return Number.isFinite(n) ? n : String(v).toLowerCase();
    }
    default:
      return typeof v === 'string' ? v.toLowerCase() : typeof v === 'object' ? JSON.stringify(v).toLowerCase() : String(v).toLowerCase();
  }
}

const sameValue = (a: string | number, b: unknown) =>
  typeof a === 'number' ? Number(b) === a && String(b).trim() !== '' : String(a) === String(b);

/** One condition against a field's value (never UNKNOWN here). */
export function testCondition(c: Condition, value: FieldValue): boolean {
  if (c.operator === 'is_present') return !absent(value) && value !== '';
  if (c.operator === 'is_not_present') return absent(value) || value === '';
  if (c.type === 'labels') {
    const have = new Set((Array.isArray(value) ? value : []).map((l) => String(l).toLowerCase()));
    const any = c.values.some((v) => have.has(String(v)));
    return c.operator === 'equal_to' ? any : c.operator === 'not_equal_to' ? !any : false;
  }
  const v = comparable(c.type, value);
  if (v === undefined) return c.custom && c.operator === 'not_equal_to';
  switch (c.operator) {
    case 'equal_to':
      return c.values.some((x) => sameValue(v, x));
    case 'not_equal_to':
      return !c.values.some((x) => sameValue(v, x));
    case 'contains':
      return c.values.some((x) => String(v).toLowerCase().includes(String(x)));
    case 'does_not_contain':
      return !c.values.some((x) => String(v).toLowerCase().includes(String(x)));
    case 'starts_with':
      return c.values.some((x) => String(v).toLowerCase().startsWith(String(x)));
    case 'is_greater_than':
      return typeof v === typeof c.values[0] && v > (c.values[0] as typeof v);
    case 'is_less_than':
    case 'days_before':
      return typeof v === typeof c.values[0] && v < (c.values[0] as typeof v);
  }
}

/**
 * The payload's verdict on one thing: true, false, or undefined when it depends on a field the reader
 * does not know. An empty payload matches everything.
 */
export function evaluate(conditions: Condition[], read: Reader): boolean | undefined {
  if (!conditions.length) return true;
  // OR of AND-chains (AND binds tighter), each in Kleene logic.
  let any: boolean | undefined = false;
  let chain: boolean | undefined = true;
  conditions.forEach((c, i) => {
    const value = read(c);
    const r = value === UNKNOWN ? undefined : testCondition(c, value);
    chain = chain === false || r === false ? false : chain === undefined || r === undefined ? undefined : true;
    if (c.join !== 'AND' || i === conditions.length - 1) {
      any = any === true || chain === true ? true : any === undefined || chain === undefined ? undefined : false;
      chain = true;
    }
  });
  return any;
}

/**
 * When every OR-group of the payload requires an exact value of one of `keys` (an `equal_to` on a
 * standard key, e.g. a contact's email or phone number, which are unique per account), the things that
 * can match are exactly the holders of those values: the lookups to make instead of reading everything.
 * Undefined when some group could match without such a value.
 */
export function exactLookups(conditions: Condition[], keys: readonly string[]): { key: string; value: string }[] | undefined {
  if (!conditions.length) return undefined;
  const groups: Condition[][] = [[]];
  conditions.forEach((c, i) => {
    groups.at(-1)!.push(c);
    if (c.join !== 'AND' && i < conditions.length - 1) groups.push([]);
  });
  const out: { key: string; value: string }[] = [];
  for (const group of groups) {
    const exact = group.find((c) => !c.custom && c.operator === 'equal_to' && keys.includes(c.key) && c.values.length);
    if (!exact) return undefined;
    for (const v of exact.values) out.push({ key: exact.key, value: String(v) });
  }
  return out;
}
