import { getConversation } from '#shared/db/repositories/conversations.ts';
import { log } from '#shared/log.ts';
import { updateContact } from '../contacts/service.ts';
import type { ConversationActor, ConversationRecord, Priority } from '#shared/model/conversations.ts';
import { applyLabels, assignConversation, changeStatus, setPriority } from '../conversations/service.ts';
import { addMessage } from '../messages/service.ts';
import { applySlaPolicy } from '../sla/apply.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import type { Action } from '#shared/model/automation.ts';

// The one runner of the catalog's actions on a conversation: automation rules (events pipeline, the rule
// as actor) and macros (an agent's request, the agent as actor) both go through it.

/** Where a `send_webhook_event` action's URL and the conversation go; the caller decides how it is sent. */
export type WebhookSink = (url: string, conversation: ConversationRecord) => void;

export async function runConversationAction(
  account: AccountRecord,
  actor: ConversationActor,
  displayId: number,
  action: Action,
  onWebhook: WebhookSink,
): Promise<void> {
  const name = action.action_name;
  const params = action.action_params ?? [];
  // Each action sees the conversation as the previous one left it.
  const c = await getConversation(account.id, displayId, true);
  if (!c) return;
  const first = params[0];
  switch (name) {
    case 'add_label':
      await applyLabels(account, actor, c, [...c.labels, ...params.map(String).filter((l) => !c.labels.includes(l))]);
      return;
    case 'remove_label':
      await applyLabels(
        account,
        actor,
        c,
        c.labels.filter((l) => !params.map(String).includes(l)),
      );
      return;
    case 'assign_agent':
      await assignConversation(account, actor, c, { assignee_id: first === 'nil' ? null : Number(first) });
      return;
    case 'assign_team':
      await assignConversation(account, actor, c, {
        team_id: first === undefined || first === 'nil' || Number(first) === 0 ? null : Number(first),
      });
      return;
    case 'send_message':
      await addMessage(account, actor, c, { content: String(first), message_type: 'outgoing' });
      return;
    case 'add_private_note':
      await addMessage(account, actor, c, { content: String(first), message_type: 'outgoing', private: true });
      return;
    case 'resolve_conversation':
      await changeStatus(account, actor, c, { status: 'resolved' });
      return;
    case 'open_conversation':
      await changeStatus(account, actor, c, { status: 'open' });
      return;
    case 'snooze_conversation':
      await changeStatus(account, actor, c, { status: 'snoozed', snoozed_until: null });
      return;
    case 'change_status':
      await changeStatus(account, actor, c, { status: String(first) as never });
      return;
    case 'change_priority':
      await setPriority(account, actor, c, first === 'nil' ? null : (String(first) as Priority));
      return;
    case 'mute_conversation':
      await changeStatus(account, actor, c, { status: 'resolved' });
      await updateContact(account.id, c.contact_id, { blocked: true });
      return;
    case 'send_webhook_event':
      onWebhook(String(first), c);
      return;
    case 'add_sla':
      await applySlaPolicy(c, actor, Number(first), { onlyWhenNone: true });
      return;
    default:
      log.warn('unknown conversation action', { action: name });
  }
}
