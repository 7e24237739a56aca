import type { ErrorEntry } from '#shared/errors.ts';
import {
  CUSTOM_ATTRIBUTE_TYPES,
  type Action,
  type AutomationEvent,
  type Condition,
  type FilterOperator,
  type Scalar,
} from '#shared/model/automation.ts';

// What an automation rule may say (docs/chatwoot.md#automation-rules, docs/decisions.md#automation), as data: the
// rule validator below reads it now, and the evaluator reads the same tables (where each key's value lives, which
// operators apply, what each action's params mean) when rules run.

/** Operators that look at no values. */
export const VALUELESS_OPERATORS: readonly FilterOperator[] = ['is_present', 'is_not_present'];

/**
 * Compares a key's value before and after a `conversation_updated` change (`values: {from, to}`);
 * any key takes it, and only that event carries changes, so other events refuse it.
 */
export const CHANGE_OPERATOR = 'attribute_changed';
export const CHANGE_EVENTS: readonly AutomationEvent[] = ['conversation_updated'];

/**
 * `query_operator` joins a condition to the next one; AND binds tighter than OR
 * (docs/chatwoot.md#chaining-conditions).
 */
export const QUERY_OPERATORS = ['and', 'or'] as const;

/**
 * Where a condition key's value is read:
 *  conversation: a conversation field; conversation_attributes: conversation additional_attributes;
 *  contact: a contact field; contact_attributes: contact additional_attributes;
 *  message: the triggering message (message_created) or any message of the conversation (other events);
 *  labels: the conversation's labels.
 */
export type AttributeSource = 'conversation' | 'conversation_attributes' | 'contact' | 'contact_attributes' | 'message' | 'labels';

export interface ConditionAttribute {
  source: AttributeSource;
  /** Field name in that source. */
  field: string;
  operators: readonly FilterOperator[];
  /** The values the key can hold, where it is an enumeration. */
  values?: readonly (string | number)[];
  /** Values are record ids. */
  ids?: boolean;
}

const EQUALITY: readonly FilterOperator[] = ['equal_to', 'not_equal_to'];
const PRESENCE: readonly FilterOperator[] = [...EQUALITY, 'is_present', 'is_not_present'];
const TEXT: readonly FilterOperator[] = [...EQUALITY, 'contains', 'does_not_contain'];

export const CONDITION_ATTRIBUTES: Record<string, ConditionAttribute> = {
  status: { source: 'conversation', field: 'status', operators: EQUALITY, values: ['open', 'resolved', 'pending', 'snoozed', 'all'] },
  assignee_id: { source: 'conversation', field: 'assignee_id', operators: PRESENCE, ids: true },
  inbox_id: { source: 'conversation', field: 'inbox_id', operators: PRESENCE, ids: true },
  team_id: { source: 'conversation', field: 'team_id', operators: PRESENCE, ids: true },
  priority: { source: 'conversation', field: 'priority', operators: EQUALITY, values: ['low', 'medium', 'high', 'urgent'] },
  labels: { source: 'labels', field: 'labels', operators: PRESENCE },
  browser_language: { source: 'conversation_attributes', field: 'browser_language', operators: EQUALITY },
  conversation_language: { source: 'conversation_attributes', field: 'conversation_language', operators: EQUALITY },
  referer: { source: 'conversation_attributes', field: 'referer', operators: TEXT },
  mail_subject: { source: 'conversation_attributes', field: 'mail_subject', operators: TEXT },
  email: { source: 'contact', field: 'email', operators: TEXT },
  phone_number: { source: 'contact', field: 'phone_number', operators: [...TEXT, 'starts_with'] },
  country_code: { source: 'contact_attributes', field: 'country_code', operators: EQUALITY },
  city: { source: 'contact_attributes', field: 'city', operators: TEXT },
  company: { source: 'contact_attributes', field: 'company', operators: TEXT },
  // Names as the dashboard sends them; the REST integer codes 0-3 mean the same.
  message_type: {
    source: 'message',
    field: 'message_type',
    operators: EQUALITY,
    values: ['incoming', 'outgoing', 'activity', 'template', 0, 1, 2, 3],
  },
  content: { source: 'message', field: 'processed_message_content', operators: TEXT },
};

/**
 * Keys outside the table are custom attributes and must say which record holds them (Chatwoot's
 * defaults for a missing type differ between validation and evaluation, so it is required here).
 */
export const CUSTOM_ATTRIBUTE_OPERATORS: readonly FilterOperator[] = [
  ...TEXT,
  'is_present',
  'is_not_present',
  'is_greater_than',
  'is_less_than',
  'days_before',
];

/**
 * What an action's `action_params` hold:
 *  text: one non-empty string; labels: one or more label titles; agent: [user id] or ["nil"] (unassign);
 *  team: [team id], or ["nil"], [0] or [] (unassign); status / priority: one value of the list ("nil"
 *  clears the priority); url: one http(s) URL; sla: [SLA policy id] (Chatwoot's enterprise `add_sla`); none: ignored.
 */
export type ActionParams = 'text' | 'labels' | 'agent' | 'team' | 'status' | 'priority' | 'url' | 'sla' | 'none';

export const ACTIONS: Record<string, ActionParams> = {
  add_label: 'labels',
  remove_label: 'labels',
  assign_agent: 'agent',
  assign_team: 'team',
  send_message: 'text',
  add_private_note: 'text',
  resolve_conversation: 'none',
  open_conversation: 'none',
  snooze_conversation: 'none',
  mute_conversation: 'none',
  change_status: 'status',
  change_priority: 'priority',
  add_sla: 'sla',
  send_webhook_event: 'url',
};

export const ACTION_STATUSES = ['open', 'resolved', 'pending', 'snoozed'] as const;
export const ACTION_PRIORITIES = ['low', 'medium', 'high', 'urgent', 'nil'] as const;

// ── validation ────────────────────────────────────────────────────────────────────────────────────

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isScalar = (x: unknown): x is Scalar => typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean';
const isId = (x: unknown) => (typeof x === 'number' && Number.isInteger(x) && x > 0) || (typeof x === 'string' && /^\d{1,15}$/.test(x));
const isNonEmptyText = (x: unknown) => typeof x === 'string' && x.trim() !== '';
const isHttpUrl = (x: unknown) => {
  if (typeof x !== 'string') return false;
  try {
    const u = new URL(x.trim());
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
};
const listed = (list: readonly unknown[]) => (x: unknown) => list.includes(x);

type Problems = ErrorEntry[];
const add = (out: Problems, field: string, message: string, code = 'invalid') => out.push({ field, message, code });

function checkValues(
  out: Problems,
  at: string,
  attr: ConditionAttribute | undefined,
  op: FilterOperator,
  values: unknown,
): Condition['values'] | undefined {
  const field = `${at}.values`;
  if (op === CHANGE_OPERATOR) {
    if (!isObject(values) || !Array.isArray(values.from) || !Array.isArray(values.to)) {
      add(out, field, 'must be an object with "from" and "to" arrays for attribute_changed');
      return undefined;
    }
    if (![...values.from, ...values.to].every(isScalar)) return void add(out, field, 'may only hold strings, numbers and booleans');
    return { from: values.from as Scalar[], to: values.to as Scalar[] };
  }
  if (values === undefined || values === null) {
    if (VALUELESS_OPERATORS.includes(op)) return [];
    return void add(out, field, 'is required', 'required');
  }
  if (!Array.isArray(values)) return void add(out, field, 'must be an array');
  if (!values.every(isScalar)) return void add(out, field, 'may only hold strings, numbers and booleans');
  if (VALUELESS_OPERATORS.includes(op)) return values;
  if (values.length === 0) return void add(out, field, 'must not be empty', 'required');
  if (attr?.ids && !values.every(isId)) return void add(out, field, 'must hold ids');
  if (attr?.values && !values.every(listed(attr.values))) return void add(out, field, `may only hold ${attr.values.join(', ')}`);
  return values;
}

function checkCondition(out: Problems, i: number, raw: unknown, event: AutomationEvent | undefined, last: boolean): Condition | undefined {
  const at = `conditions[${i}]`;
  if (!isObject(raw)) return void add(out, at, 'must be an object');
  const before = out.length;

  const key = raw.attribute_key;
  const customType = raw.custom_attribute_type;
  let attr: ConditionAttribute | undefined;
  let allowed: readonly FilterOperator[] | undefined;
  if (typeof key !== 'string' || key.trim() === '') add(out, `${at}.attribute_key`, 'is required', 'required');
  else if (customType !== undefined && customType !== null) {
    if ((CUSTOM_ATTRIBUTE_TYPES as readonly unknown[]).includes(customType)) allowed = CUSTOM_ATTRIBUTE_OPERATORS;
    else add(out, `${at}.custom_attribute_type`, `must be one of ${CUSTOM_ATTRIBUTE_TYPES.join(', ')}`);
  } else if ((attr = CONDITION_ATTRIBUTES[key])) allowed = attr.operators;
  else {
    add(
      out,
      `${at}.attribute_key`,
      `is not supported (use one of ${Object.keys(CONDITION_ATTRIBUTES).join(', ')}, or a custom attribute with custom_attribute_type)`,
    );
  }

  const op = raw.filter_operator;
  if (typeof op !== 'string' || op === '') add(out, `${at}.filter_operator`, 'is required', 'required');
  else if (op === CHANGE_OPERATOR) {
    if (event && !CHANGE_EVENTS.includes(event))
      add(out, `${at}.filter_operator`, `attribute_changed only applies to ${CHANGE_EVENTS.join(', ')}`);
  } else if (allowed && !allowed.includes(op as FilterOperator)) {
    add(out, `${at}.filter_operator`, `is not valid for ${String(key)} (use one of ${[...allowed, CHANGE_OPERATOR].join(', ')})`);
  }

  const q = raw.query_operator;
  const qValid = typeof q === 'string' && (QUERY_OPERATORS as readonly string[]).includes(q.toLowerCase());
  if (q === undefined || q === null || q === '') {
    if (!last) add(out, `${at}.query_operator`, 'is required on every condition but the last (and, or)', 'required');
  } else if (!qValid) add(out, `${at}.query_operator`, 'must be and or or');

  const values = out.length === before ? checkValues(out, at, attr, op as FilterOperator, raw.values) : undefined;
  if (out.length !== before || values === undefined) return undefined;
  return {
    attribute_key: key as string,
    filter_operator: op as FilterOperator,
    values,
    ...('query_operator' in raw ? { query_operator: (q as string | null | undefined) ?? null } : {}),
    ...(customType !== undefined && customType !== null ? { custom_attribute_type: customType as Condition['custom_attribute_type'] } : {}),
  };
}

function checkParams(kind: ActionParams, params: unknown[]): string | undefined {
  const one = params.length === 1;
  switch (kind) {
    case 'text':
      return one && isNonEmptyText(params[0]) ? undefined : 'must hold one non-empty text';
    case 'labels':
      return params.length > 0 && params.every(isNonEmptyText) ? undefined : 'must hold one or more label names';
    case 'agent':
      return one && (isId(params[0]) || params[0] === 'nil') ? undefined : 'must hold one user id, or "nil" to unassign';
    case 'team':
      return params.length === 0 || (one && (isId(params[0]) || params[0] === 'nil' || params[0] === 0 || params[0] === '0'))
        ? undefined
        : 'must hold one team id, or "nil" to unassign';
    case 'status':
      return one && listed(ACTION_STATUSES)(params[0]) ? undefined : `must hold one of ${ACTION_STATUSES.join(', ')}`;
    case 'priority':
      return one && listed(ACTION_PRIORITIES)(params[0]) ? undefined : `must hold one of ${ACTION_PRIORITIES.join(', ')}`;
    case 'url':
      return one && isHttpUrl(params[0]) ? undefined : 'must hold one http or https URL';
    case 'sla':
      return one && isId(params[0]) ? undefined : 'must hold one SLA policy id';
    case 'none':
      return undefined;
  }
}

function checkAction(out: Problems, i: number, raw: unknown): Action | undefined {
  const at = `actions[${i}]`;
  if (!isObject(raw)) return void add(out, at, 'must be an object');
  const name = raw.action_name;
  const kind = typeof name === 'string' ? ACTIONS[name] : undefined;
  if (typeof name !== 'string' || name === '') return void add(out, `${at}.action_name`, 'is required', 'required');
  if (!kind) return void add(out, `${at}.action_name`, `is not supported (use one of ${Object.keys(ACTIONS).join(', ')})`);
  const params = raw.action_params ?? [];
  if (!Array.isArray(params)) return void add(out, `${at}.action_params`, 'must be an array');
  const problem = checkParams(kind, params);
  if (problem) return void add(out, `${at}.action_params`, problem);
  return { action_name: name, action_params: params };
}

/**
 * Checks a rule's conditions and actions for its event; answers them in their stored form (only the
 * known fields of each entry) or the problems, each naming its path (`conditions[1].filter_operator`).
 */
export function checkRule(
  event: AutomationEvent | undefined,
  conditions: unknown[],
  actions: unknown[],
): { problems: Problems; conditions: Condition[]; actions: Action[] } {
  const problems: Problems = [];
  const cs = conditions.map((c, i) => checkCondition(problems, i, c, event, i === conditions.length - 1));
  const as = actions.map((a, i) => checkAction(problems, i, a));
  return { problems, conditions: cs as Condition[], actions: as as Action[] };
}
