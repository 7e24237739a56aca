import { getAccount } from '#shared/db/repositories/identity.ts';
import { getContact } from '#shared/db/repositories/contacts.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { listMessages } from '#shared/db/repositories/messages.ts';
import { claimRuleRun, listActiveAutomationRules } from '#shared/db/repositories/automation-rules.ts';
import { log } from '#shared/log.ts';
import { METRIC_NAMES } from '#shared/metric-names.ts';
import { count } from '#shared/metrics.ts';
import { CONDITION_ATTRIBUTES } from '#shared/domain/automation/catalog.ts';
import { conditionsHold, type Facts } from '#shared/domain/automation/conditions.ts';
import { AUTOMATION_EVENTS, type AutomationEvent } from '#shared/model/automation.ts';
import type { AutomationRuleRecord } from '#shared/model/automation.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { DomainEvent } from '#shared/domain/events/domain-events.ts';

// Automation rules (docs/chatwoot.md#automation-rules, docs/decisions.md#automation): the rules whose conditions
// hold (shared/domain/automation/conditions.ts) run each action in order with the rule as the actor, and no rule is
// ever triggered by what a rule did.

/** A rule's `send_webhook_event` target, queued like any other delivery. */
export interface RuleWebhook {
  rule: AutomationRuleRecord;
  url: string;
  conversation: ConversationRecord;
}

/**
 * Chatwoot's loop protection for mail (docs/mail.md#incoming-mail): an out-of-office or other automatic reply runs
 * no rule, neither its message's `message_created` nor its conversation's `conversation_created` or
 * `conversation_opened`.
 */
export function isAutoReplyEvent(event: Pick<DomainEvent, 'name' | 'conversation' | 'message'>): boolean {
  if (event.name === 'message_created') {
    const email = event.message?.content_attributes?.email as { auto_reply?: unknown } | undefined;
    return email?.auto_reply === true;
  }
  if (event.name === 'conversation_created' || event.name === 'conversation_opened')
    return event.conversation?.additional_attributes?.auto_reply === true;
  return false;
}

/**
 * Runs the account's active rules for this event. Returns the `send_webhook_event` deliveries the
 * rules asked for, for the dispatcher to queue.
 */
export async function runAutomation(event: DomainEvent): Promise<RuleWebhook[]> {
  if (!(AUTOMATION_EVENTS as readonly string[]).includes(event.name)) return [];
  if (event.performedBy?.type === 'automation_rule') return [];
  if (event.name === 'message_created' && event.message?.message_type === 2) return [];
  if (isAutoReplyEvent(event)) return [];
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
    // The actions (every conversation, contact and message change a rule can make) load with the first rule that
    // matches (a dynamic import): the dispatcher's cold start carries only the matching.
    const { runConversationAction } = await import('#shared/domain/automation/actions.ts');
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
