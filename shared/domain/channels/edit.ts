import { findProviderMessage } from '#shared/db/repositories/channels.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { getMessage } from '#shared/db/repositories/messages.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { now } from '#shared/model/time.ts';
import { saveMessage } from '../messages/service.ts';
import type { IncomingEdit } from './types.ts';

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
