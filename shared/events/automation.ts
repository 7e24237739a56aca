import { getAccount } from '../db/repositories/identity.ts';
import { getContact } from '../db/repositories/contacts.ts';
import { getConversation } from '../db/repositories/conversations.ts';
import { listMessages } from '../db/repositories/messages.ts';
import { claimRuleRun, listActiveAutomationRules } from '../db/repositories/automation-rules.ts';
import { log } from '../log.ts';
import { METRIC_NAMES } from '../metric-names.ts';
import { count } from '../metrics.ts';
import { CHANGE_OPERATOR, CONDITION_ATTRIBUTES } from '../domain/automation/catalog.ts';
import { AUTOMATION_EVENTS, type AutomationEvent, type Condition, type Scalar } from '../model/automation.ts';
import type { AutomationRuleRecord } from '../model/automation.ts';
import { runConversationAction } from '../domain/automation/actions.ts';
import type { ContactRecord } from '../model/contacts.ts';
import type { ConversationRecord } from '../model/conversations.ts';
import type { MessageRecord } from '../model/messages.ts';
import { messageTypeName } from '../model/messages.ts';
import type { DomainEvent } from '../domain/events/domain-events.ts';

// Automation rules (docs/chatwoot.md#automation-rules, docs/decisions.md#automation): conditions chained left to
// right with AND binding tighter than OR, each action run in order with the rule as the actor, and no rule ever
// triggered by what a rule did.

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
      // On joined label rows, "not X" holds when any other label is there (docs/chatwoot.md#conditions).
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

function holds(c: Condition, f: Facts): boolean {
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

/** A rule's `send_webhook_event` target, queued like any other delivery. */
export interface RuleWebhook {
  rule: AutomationRuleRecord;
  url: string;
  conversation: ConversationRecord;
}

/**
 * Runs the account's active rules for this event. Returns the `send_webhook_event` deliveries the
 * rules asked for, for the dispatcher to queue.
 */
export async function runAutomation(event: DomainEvent): Promise<RuleWebhook[]> {
  if (!(AUTOMATION_EVENTS as readonly string[]).includes(event.name)) return [];
  if (event.performedBy?.type === 'automation_rule') return [];
  if (event.name === 'message_created' && event.message?.message_type === 2) return [];
  const rules = await listActiveAutomationRules(event.accountId, event.name as AutomationEvent);
  if (!rules.length) return [];

  const displayId = event.conversation?.id ?? event.message?.conversation_id;
  if (displayId === undefined) return [];
  const [account, conversation] = await Promise.all([getAccount(event.accountId), getConversation(event.accountId, displayId, true)]);
  if (!account || !conversation) return [];
  const contact = await getContact(account.id, conversation.contact_id);
  const needsMessages = rules.some((r) => r.conditions.some((c) => CONDITION_ATTRIBUTES[c.attribute_key]?.source === 'message'));
  const messages = event.message ? [event.message] : needsMessages ? await listMessages(account.id, conversation.id, { limit: 1000 }) : [];
  const facts: Facts = { conversation, contact, messages, changes: event.changes };

  const webhooks: RuleWebhook[] = [];
  for (const rule of rules) {
    let matched = false;
    try {
      matched = conditionsHold(rule.conditions, facts);
    } catch (err) {
      log.warn('automation rule could not be evaluated', { eventId: event.id, ruleId: rule.id, error: err });
    }
    if (!matched || !(await claimRuleRun(event.id, rule.id))) continue;
    log.info('automation rule matched', { eventId: event.id, ruleId: rule.id, event: event.name });
    count(METRIC_NAMES.rulesRun);
    for (const action of rule.actions) {
      try {
        await runConversationAction(account, { type: 'automation_rule', ruleId: rule.id }, conversation.id, action, (url, c) =>
          webhooks.push({ rule, url, conversation: c }),
        );
      } catch (err) {
        // One failing action does not stop the next (docs/chatwoot.md#rule-events).
        log.warn('automation action failed', { eventId: event.id, ruleId: rule.id, action: action.action_name, error: err });
      }
    }
  }
  return webhooks;
}
