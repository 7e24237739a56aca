import { randomBytes } from 'node:crypto';
import { claimSend, recordProviderMessage, releaseSend, type ProviderMessageRef } from '#shared/db/repositories/channels.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { getInbox } from '#shared/db/repositories/inboxes.ts';
import { getMessage } from '#shared/db/repositories/messages.ts';
import { getContact } from '#shared/db/repositories/contacts.ts';
import { notFound } from '#shared/errors.ts';
import type { Actor } from '#shared/model/actor.ts';
import type { ContactRecord } from '#shared/model/contacts.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import { now } from '#shared/model/time.ts';
import { visibleConversation } from '../conversations/access.ts';
import { canReply, loadRefs, messageJson } from '../conversations/view.ts';
import { changeMessage } from '../messages/service.ts';
import { movesFrom } from './status.ts';
import { wantsSend } from './send-rule.ts';

export { isRetry, wantsSend } from './send-rule.ts';

// What a channel sends and how its outcome is kept (docs/channels.md#outgoing), the same for every channel:
// Chatwoot's rule of what is sent, the claim that makes a send happen at most once, the provider id saved as
// `source_id` (a `message_updated`), a refusal as `failed` with `content_attributes.external_error`, and the
// retry an agent asks for.

/** Everything a room needs to send one message. */
export interface OutgoingContext {
  inbox: InboxRecord;
  conversation: ConversationRecord;
  message: MessageRecord;
  contact: ContactRecord | undefined;
  /** The contact inbox's source id: the recipient's address at the provider. */
  recipient: string;
  /** The provider id of the message this one replies to, when it has one. */
  replyTo?: string;
  /** Inside the channel's messaging window (Chatwoot's `can_reply`). */
  canReply: boolean;
}

export const refOf = (m: Pick<MessageRecord, 'account_id' | 'conversation_id' | 'id'>): ProviderMessageRef => ({
  account_id: m.account_id,
  conversation_id: m.conversation_id,
  message_id: m.id,
});

/** The message to send and its surroundings, or undefined when there is nothing (left) to send. */
export async function loadOutgoing(ref: ProviderMessageRef & { inbox_id: number }): Promise<OutgoingContext | undefined> {
  const [inbox, conversation, message] = await Promise.all([
    getInbox(ref.account_id, ref.inbox_id),
    getConversation(ref.account_id, ref.conversation_id, true),
    getMessage(ref.account_id, ref.conversation_id, ref.message_id),
  ]);
  if (!inbox || !conversation || !message || !wantsSend(message) || message.status === 'failed') return undefined;
  const inReplyTo = message.content_attributes.in_reply_to;
  const [contact, replied] = await Promise.all([
    getContact(ref.account_id, conversation.contact_id),
    typeof inReplyTo === 'number' ? getMessage(ref.account_id, ref.conversation_id, inReplyTo) : undefined,
  ]);
  return {
    inbox,
    conversation,
    message,
    contact,
    recipient: conversation.source_id,
    replyTo: replied?.source_id ?? undefined,
    canReply: canReply(conversation, inbox, Math.floor(Date.now() / 1000)),
  };
}

/** A send claim's token: when it was taken (a claim older than a send can take belongs to an attempt that died). */
const claimToken = () => `${Date.now()}.${randomBytes(6).toString('hex')}`;
export const claimAge = (token: string, at = Date.now()) => at - Number(token.split('.')[0]);

export type Claim = { token: string } | { held: string | undefined };

/** Claims the message for this attempt; `held` names the claim another attempt holds (or nothing: sent meanwhile). */
export async function claimOutgoing(m: MessageRecord): Promise<Claim> {
  const token = claimToken();
  if (await claimSend(refOf(m), token)) return { token };
  const now = await getMessage(m.account_id, m.conversation_id, m.id);
  return { held: now && !now.source_id ? now.send_claim : undefined };
}

export const releaseOutgoing = (m: MessageRecord, token: string) => releaseSend(refOf(m), token);

/** A send the provider took. */
export interface SentOutcome {
  /** The provider's id of the message: its `source_id`. */
  sourceId: string;
  /** What the provider's answer itself says of the message (LINE: a push answered 200 is `delivered`). */
  status?: 'delivered';
  /**
   * What the message is found by in the inbox (statuses, a contact's reply to it, an echo) when the room's claim keys
   * are not the provider's ids (Telegram: chat and message id, as `IncomingMessage.claimKey`); absent, `sourceId`.
   */
  claimKey?: string;
  /**
   * The provider ids of the other parts, when one message went out as several (Messenger: the text, then each
   * attachment): each is recorded for the message too, so the echo of every part is known and none is stored again.
   */
  partIds?: string[];
}

/**
 * The provider took the message: its id becomes `source_id` (a `message_updated`) and its claim key locates the
 * message for statuses and replies; `status` is what the provider's answer said of it (LINE: `delivered`), applied
 * forward only. Only these fields are written (AP80), so a status webhook that came first is kept.
 */
export async function recordSent(m: MessageRecord, { sourceId, status, claimKey, partIds = [] }: SentOutcome): Promise<void> {
  const keys = new Set([claimKey ?? sourceId, ...partIds]);
  await Promise.all([...keys].map((key) => recordProviderMessage(m.inbox_id, key, refOf(m))));
  const sent = { source_id: sourceId, updated_at: now() };
  if (status && (await changeMessage(m, { set: { ...sent, status }, releaseClaim: true, ifStatusIn: movesFrom(status) }))) return;
  await changeMessage(m, { set: sent, releaseClaim: true });
}

/** The provider refused the message (or it cannot be sent): `failed`, with the reason as Chatwoot words it. */
export async function recordFailure(m: MessageRecord, error: string): Promise<void> {
  await changeMessage(m, {
    set: { status: 'failed', updated_at: now() },
    setAttributes: { external_error: error.slice(0, 1000) },
    releaseClaim: true,
    ifStatusIn: movesFrom('failed'),
  });
}

/**
 * `POST …/messages/{id}/retry`: a `failed` message is `sent` again with its content attributes cleared (Chatwoot's
 * retry), which the pipeline sends again (shared/events/dispatch.ts); the message is the answer. Any other message
 * is answered as it is and nothing changes (Chatwoot retries only a failed message): a delivered or read message is
 * not taken back. The change is conditioned on `failed` (AP80), so a retry racing a status cannot undo it.
 */
export async function retryMessage(account: AccountRecord, actor: Actor, displayId: number, messageId: number) {
  const c = await visibleConversation(account.id, actor, displayId, true);
  const m = await getMessage(account.id, c.id, messageId);
  if (!m) throw notFound('Message');
  const retried =
    m.status === 'failed'
      ? await changeMessage(
          m,
          { set: { status: 'sent', content_attributes: {}, updated_at: now() }, releaseClaim: true, ifStatusIn: ['failed'] },
          c,
        )
      : undefined;
  const after = retried ?? m;
  return messageJson(after, await loadRefs(account.id, actor, [], [after]));
}
