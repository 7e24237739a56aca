import { findProviderMessage } from '#shared/db/repositories/channels.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { getMessage } from '#shared/db/repositories/messages.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { MessageRecord, MessageStatus } from '#shared/model/messages.ts';
import { now } from '#shared/model/time.ts';
import { saveMessage } from '../messages/service.ts';
import { findContactInbox } from '#shared/db/repositories/contacts.ts';
import { listContactConversationLinks } from '#shared/db/repositories/conversations.ts';
import { listMessages } from '#shared/db/repositories/messages.ts';
import type { ProviderStatus, Watermark } from './types.ts';

// A provider's status of a message we sent (docs/channels.md#statuses): found by the provider id our send saved,
// applied only forward (sent < delivered < read; failed from sent or delivered), each change a `message_updated`.
// Chatwoot assigns WhatsApp, Twilio and Bandwidth statuses as they come, so a late `delivered` can undo `read`
// there; here it is ignored.

const RANK: Record<MessageStatus, number> = { sent: 0, delivered: 1, read: 2, failed: 3 };

/** Whether a message in `current` moves to `next`. */
export function advances(current: MessageStatus, next: MessageStatus): boolean {
  if (current === 'failed') return false;
  if (next === 'failed') return current !== 'read';
  return RANK[next] > RANK[current];
}

/** The message after the status, or undefined when it does not move. */
export function withStatus(m: MessageRecord, s: Pick<ProviderStatus, 'status' | 'error'>): MessageRecord | undefined {
  if (!advances(m.status, s.status)) return undefined;
  const attrs = { ...m.content_attributes };
  if (s.status === 'failed' && s.error) attrs.external_error = s.error;
  else delete attrs.external_error;
  return { ...m, status: s.status, content_attributes: attrs, updated_at: now() };
}

/** Applies a provider status; false when its message is unknown or the status would go back. */
export async function applyProviderStatus(inbox: InboxRecord, s: ProviderStatus): Promise<boolean> {
  const ref = await findProviderMessage(inbox.id, s.providerId);
  if (!ref) return false;
  const [c, m] = await Promise.all([
    getConversation(ref.account_id, ref.conversation_id, true),
    getMessage(ref.account_id, ref.conversation_id, ref.message_id),
  ]);
  if (!c || !m) return false;
  if (s.through && s.status !== 'failed') return (await markUpTo(c, s.status, m.created_at)) > 0;
  const next = withStatus(m, s);
  if (!next) return false;
  await saveMessage(c, next);
  return true;
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
    const next = withStatus(m, { status });
    if (!next) continue;
    await saveMessage(c, next);
    applied++;
  }
  return applied;
}
