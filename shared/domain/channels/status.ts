import { findProviderMessage } from '#shared/db/repositories/channels.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { getMessage } from '#shared/db/repositories/messages.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { MessageRecord, MessageStatus } from '#shared/model/messages.ts';
import { now } from '#shared/model/time.ts';
import { saveMessage } from '../messages/service.ts';
import type { ProviderStatus } from './types.ts';

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
  const next = withStatus(m, s);
  if (!next) return false;
  await saveMessage(c, next);
  return true;
}
