import { findProviderMessage } from '#shared/db/repositories/channels.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { getMessage, type MessageFieldChange } from '#shared/db/repositories/messages.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { MESSAGE_STATUSES, type MessageStatus } from '#shared/model/messages.ts';
import { now } from '#shared/model/time.ts';
import { changeMessage } from '../messages/service.ts';
import { findContactInbox } from '#shared/db/repositories/contacts.ts';
import { listContactConversationLinks } from '#shared/db/repositories/conversations.ts';
import { listMessages } from '#shared/db/repositories/messages.ts';
import type { ProviderStatus, Watermark } from './types.ts';

// A provider's status of a message we sent (docs/channels.md#statuses): found by the provider id our send saved,
// applied only forward (sent < delivered < read; failed from sent or delivered), each change a `message_updated`,
// written conditioned on the status it moves from (a racing write never takes it back).
// Chatwoot assigns WhatsApp, Twilio and Bandwidth statuses as they come, so a late `delivered` can undo `read`
// there; here it is ignored.

const RANK: Record<MessageStatus, number> = { sent: 0, delivered: 1, read: 2, failed: 3 };

/** Whether a message in `current` moves to `next`. */
export function advances(current: MessageStatus, next: MessageStatus): boolean {
  if (current === 'failed') return false;
  if (next === 'failed') return current !== 'read';
  return RANK[next] > RANK[current];
}

/** The statuses a message may move to `next` from. */
export const movesFrom = (next: MessageStatus): MessageStatus[] => MESSAGE_STATUSES.filter((s) => advances(s, next));

/**
 * A status as a change of the stored message (AP80): applied only while the message is in a status it moves
 * forward from, so two statuses (or a status and the send's outcome) racing never take it back.
 * `external_error` is kept only with `failed`.
 */
export const statusChange = (s: Pick<ProviderStatus, 'status' | 'error'>): MessageFieldChange => ({
  set: { status: s.status, updated_at: now() },
  ...(s.status === 'failed' && s.error ? { setAttributes: { external_error: s.error } } : { removeAttributes: ['external_error'] }),
  ifStatusIn: movesFrom(s.status),
});

/**
 * Applies a provider status: `unknown` when no message of ours has its provider id (yet: a status can overtake
 * the answer to our send), `unchanged` when the status would not move the message forward.
 */
export async function applyProviderStatus(inbox: InboxRecord, s: ProviderStatus): Promise<'applied' | 'unchanged' | 'unknown'> {
  const ref = await findProviderMessage(inbox.id, s.providerId);
  if (!ref) return 'unknown';
  // A receipt that reads everything up to its message (Instagram's `read.mid`): every earlier reply too.
  if (s.through && s.status !== 'failed') {
    const [c, m] = await Promise.all([
      getConversation(ref.account_id, ref.conversation_id, true),
      getMessage(ref.account_id, ref.conversation_id, ref.message_id),
    ]);
    if (!c || !m) return 'unchanged';
    return (await markUpTo(c, s.status, m.created_at)) > 0 ? 'applied' : 'unchanged';
  }
  const changed = await changeMessage(
    { account_id: ref.account_id, conversation_id: ref.conversation_id, id: ref.message_id },
    statusChange(s),
  );
  return changed ? 'applied' : 'unchanged';
}

/** How many of the conversation's latest messages a watermark looks at (older ones were marked by earlier ones). */
const WATERMARK_WINDOW = 100;

/**
 * A watermark (Messenger): the contact inbox's latest conversation's outgoing messages created up to `at` move to
 * `delivered` or `read`, forward only, each a `message_updated`. Chatwoot takes the contact's first conversation in
 * any inbox and reads the milliseconds as seconds, so it marks every message; here only those up to the watermark.
 */
export async function applyWatermark(inbox: InboxRecord, w: Watermark): Promise<number> {
  const ci = await findContactInbox(inbox.id, w.contactSourceId);
  if (!ci) return 0;
  const [latest] = (await listContactConversationLinks(ci.account_id, ci.contact_id))
    .filter((l) => l.inbox_id === inbox.id && l.source_id === ci.source_id)
    .map((l) => l.conversation_id)
    .sort((a, b) => b - a);
  if (latest === undefined) return 0;
  const c = await getConversation(ci.account_id, latest, true);
  if (!c) return 0;
  return markUpTo(c, w.status, w.at);
}

/**
 * The conversation's outgoing messages created up to `at` (its latest WATERMARK_WINDOW) move to `status`, forward
 * only, each a `message_updated`; how many moved.
 */
async function markUpTo(c: ConversationRecord, status: 'sent' | 'delivered' | 'read', at: number): Promise<number> {
  const messages = await listMessages(c.account_id, c.id, { limit: WATERMARK_WINDOW });
  let applied = 0;
  for (const m of messages) {
    if ((m.message_type !== 1 && m.message_type !== 3) || m.private || m.created_at > at) continue;
    if (!advances(m.status, status)) continue;
    if (await changeMessage(m, statusChange({ status }), c)) applied++;
  }
  return applied;
}
