import { CHANGE_OPERATOR, CONDITION_ATTRIBUTES } from './catalog.ts';
import type { Condition, Scalar } from '#shared/model/automation.ts';
import type { ContactRecord } from '#shared/model/contacts.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import { messageTypeName } from '#shared/model/messages.ts';

// When an automation rule's conditions hold for an event (pure: the pipeline loads the facts): each
// condition reads its key where the catalog says the value lives, conditions chain left to right with AND
// binding tighter than OR, and `attribute_changed` compares a change's before and after.

export interface Facts {
  conversation: ConversationRecord;
  contact: ContactRecord | undefined;
  /** The triggering message (message_created), else every message of the conversation. */
  messages: MessageRecord[];
  changes: Record<string, [unknown, unknown]>;
}

const present = (v: unknown) => v !== null && v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0);
const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const sameValue = (a: unknown, b: Scalar) => text(a).toLowerCase() === text(b).toLowerCase();

/** The candidate values a condition looks at; it holds when any of them satisfies it (Chatwoot's joined rows). */
function candidates(c: Condition, f: Facts): unknown[] {
  const def = CONDITION_ATTRIBUTES[c.attribute_key];
  if (!def) {
    const holder = c.custom_attribute_type === 'contact_attribute' ? f.contact?.custom_attributes : f.conversation.custom_attributes;
    return [holder?.[c.attribute_key]];
  }
  switch (def.source) {
    case 'conversation':
      return [(f.conversation as unknown as Record<string, unknown>)[def.field]];
    case 'conversation_attributes':
      return [f.conversation.additional_attributes?.[def.field]];
    case 'contact':
      return [(f.contact as unknown as Record<string, unknown> | undefined)?.[def.field]];
    case 'contact_attributes':
      return [f.contact?.additional_attributes?.[def.field]];
    case 'labels':
      return [f.conversation.labels];
    case 'message':
      return f.messages.length
        ? f.messages.map((m) => (def.field === 'message_type' ? m.message_type : (m as unknown as Record<string, unknown>)[def.field]))
        : [undefined];
  }
}

function matchesValue(c: Condition, value: unknown): boolean {
  const values = (Array.isArray(c.values) ? c.values : []) as Scalar[];
  const isLabels = CONDITION_ATTRIBUTES[c.attribute_key]?.source === 'labels';
  const isMessageType = c.attribute_key === 'message_type';
  const eq = (v: Scalar) =>
    isMessageType && typeof value === 'number' ? sameValue(value, v) || sameValue(messageTypeName(value as 0), v) : sameValue(value, v);
  switch (c.filter_operator) {
    case 'equal_to':
      if (isLabels) return (value as string[]).some((l) => sameValue(l, values[0]));
      return values.some((v) => (c.attribute_key === 'status' && v === 'all') || eq(v));
    case 'not_equal_to':
      // Chatwoot joins one row per label: "not X" holds when any other label is there.
      if (isLabels) return (value as string[]).some((l) => !sameValue(l, values[0]));
      return !values.some(eq);
    case 'contains':
      return values.some((v) => text(value).toLowerCase().includes(text(v).toLowerCase()));
    case 'does_not_contain':
      return !values.some((v) => text(value).toLowerCase().includes(text(v).toLowerCase()));
    case 'starts_with':
      return values.some((v) => text(value).startsWith(text(v)));
    case 'is_present':
      return present(value);
    case 'is_not_present':
      return !present(value);
    case 'is_greater_than':
      return present(value) && Number(value) > Number(values[0]);
    case 'is_less_than':
      return present(value) && Number(value) < Number(values[0]);
    case 'days_before': {
      const t = typeof value === 'number' ? value * 1000 : Date.parse(text(value));
      return Number.isFinite(t) && t < Date.now() - Number(values[0]) * 86_400_000;
    }
    default:
      return false;
  }
}

/** One condition against the facts (chaining aside). */
export function holds(c: Condition, f: Facts): boolean {
  if (c.filter_operator === CHANGE_OPERATOR) {
    const change = f.changes[c.attribute_key === 'labels' ? 'labels' : c.attribute_key];
    const spec = c.values as { from: Scalar[]; to: Scalar[] };
    return !!change && spec.from.some((v) => sameValue(change[0], v)) && spec.to.some((v) => sameValue(change[1], v));
  }
  return candidates(c, f).some((v) => matchesValue(c, v));
}

/** `c0 op0 c1 op1 c2 …` with AND before OR: true when any run of AND-joined conditions all hold. */
export function conditionsHold(conditions: Condition[], f: Facts): boolean {
  if (!conditions.length) return true;
  let group = true;
  for (let i = 0; i < conditions.length; i++) {
    group = group && holds(conditions[i], f);
    const op = (conditions[i].query_operator ?? '').toLowerCase();
    if (i === conditions.length - 1 || op === 'or') {
      if (group) return true;
      group = true;
    }
  }
  return false;
}
