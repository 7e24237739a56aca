import { findProviderMessage } from '#shared/db/repositories/channels.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { getMessage } from '#shared/db/repositories/messages.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { now } from '#shared/model/time.ts';
import { saveMessage } from '../messages/service.ts';
import type { IncomingDeletion, IncomingEdit } from './types.ts';

// A contact's edit of a message it sent (docs/channels.md#incoming; Telegram's `edited_message`): the stored
// message, found by its claim key, takes the new text (a `message_updated`); no "edited" flag is kept, as in
// Chatwoot. An edit of a message never stored, or one that changes nothing, is dropped.

export async function applyEdit(inbox: InboxRecord, edit: IncomingEdit): Promise<boolean> {
  const ref = await findProviderMessage(inbox.id, edit.claimKey);
  if (!ref) return false;
  const [c, m] = await Promise.all([
    getConversation(ref.account_id, ref.conversation_id, true),
    getMessage(ref.account_id, ref.conversation_id, ref.message_id),
  ]);
  if (!c || !m || m.content === edit.content) return false;
  await saveMessage(c, { ...m, content: edit.content, processed_message_content: edit.content, updated_at: now() });
  return true;
}

/** Chatwoot's text of a message its contact took back. */
export const DELETED_TEXT = 'This message was deleted';

/**
 * A contact's unsend (Instagram's `is_deleted`): the stored message loses its attachments and shows
 * "This message was deleted", `content_attributes.deleted = true` (a `message_updated`), as Chatwoot does.
 */
export async function applyDeletion(inbox: InboxRecord, d: IncomingDeletion): Promise<boolean> {
  const ref = await findProviderMessage(inbox.id, d.claimKey);
  if (!ref) return false;
  const [c, m] = await Promise.all([
    getConversation(ref.account_id, ref.conversation_id, true),
    getMessage(ref.account_id, ref.conversation_id, ref.message_id),
  ]);
  if (!c || !m || m.content_attributes.deleted === true) return false;
  await saveMessage(c, {
    ...m,
    content: DELETED_TEXT,
    processed_message_content: DELETED_TEXT,
    attachments: [],
    content_attributes: { ...m.content_attributes, deleted: true },
    updated_at: now(),
  });
  return true;
}
