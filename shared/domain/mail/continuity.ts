import { mailConfig } from '#shared/config.ts';
import { getContact } from '#shared/db/repositories/contacts.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { getUser } from '#shared/db/repositories/identity.ts';
import { getInbox } from '#shared/db/repositories/inboxes.ts';
import { putThread } from '#shared/db/repositories/mail-threads.ts';
import { listMessages } from '#shared/db/repositories/messages.ts';
import type { ContactRecord } from '#shared/model/contacts.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { ReplyMail } from '#shared/model/mail.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import { fileScope, fileUrl } from '#shared/storage/file-urls.ts';
import { replyHtml } from './html.ts';
import { replyBody, replyHeaders } from './reply.ts';

// Conversation continuity (docs/mail.md#conversation-continuity): an agent's reply in a web widget conversation
// (with `continuity_via_email`) or an API conversation is mailed to a contact who left an email, with the
// conversation's threading headers, so the contact's answer by mail (to `reply+<uuid>@<inbound domain>`) lands
// back in the same conversation. Made in the dispatcher on `message_created`, sent by the mail function.

/** How many of a conversation's latest messages are read for its subject count and its last incoming mail. */
export const LOOKBACK = 50;

const isChat = (m: MessageRecord) => (m.message_type === 0 || m.message_type === 1) && !m.private;

/** Chatwoot's rule of the messages it mails: outgoing (templates only as CSAT questions), not private. */
export const mailable = (m: Pick<MessageRecord, 'message_type' | 'private' | 'content_type'>) =>
  !m.private && (m.message_type === 1 || (m.message_type === 3 && m.content_type === 'input_csat'));

export const continuityInbox = (i: Pick<InboxRecord, 'channel_type' | 'continuity_via_email'>) =>
  (i.channel_type === 'Channel::WebWidget' && i.continuity_via_email === true) || i.channel_type === 'Channel::Api';

/** What Chatwoot's mailers read around a reply: its agent's name, the count of chat messages, the last incoming mail. */
export async function replySurroundings(m: MessageRecord) {
  const recent = await listMessages(m.account_id, m.conversation_id, { limit: LOOKBACK, before: m.id + 1 });
  const lastIncoming = [...recent].reverse().find((x) => x.message_type === 0 && x.content_attributes?.email);
  const agent = m.sender_type === 'User' && m.sender_id ? await getUser(m.sender_id) : undefined;
  return {
    agentName: agent ? agent.display_name || agent.name : undefined,
    chatCount: recent.filter(isChat).length,
    lastIncoming: lastIncoming?.content_attributes.email as { message_id?: string; references?: string[] } | undefined,
    /** An earlier reply of the conversation was mailed: its thread is remembered already. */
    mailedBefore: recent.some((x) => x.id < m.id && mailable(x)),
  };
}

/** What the dispatcher read already for the event (its inbox, conversation and contact): not read again. */
export interface Known {
  inbox?: InboxRecord;
  conversation?: ConversationRecord;
  contact?: ContactRecord;
}

/** The continuity mail of a new message, or undefined when it gets none. */
export async function continuityMail(m: MessageRecord, known: Known = {}): Promise<ReplyMail | undefined> {
  if (!mailable(m)) return undefined;
  const inbox = known.inbox ?? (await getInbox(m.account_id, m.inbox_id));
  if (!inbox || !continuityInbox(inbox)) return undefined;
  const conversation = known.conversation ?? (await getConversation(m.account_id, m.conversation_id));
  const contact =
    conversation &&
    (known.contact?.id === conversation.contact_id ? known.contact : await getContact(m.account_id, conversation.contact_id));
  if (!conversation || !contact?.email) return undefined;
  const c = mailConfig();
  const { mailedBefore, ...surroundings } = await replySurroundings(m);
  const headers = replyHeaders({
    inbox,
    account_id: m.account_id,
    conversation,
    message: m,
    contactEmail: contact.email,
    mailerSender: c.mailerSenderEmail,
    inboundDomain: c.inboundMail.domain,
    ...surroundings,
  });
  const linked = m.attachments.map((a) => ({
    filename: a.filename,
    content_type: a.content_type,
    size: a.file_size,
    url: fileUrl(a.data_url, fileScope.attachment(a.account_id), a.filename),
  }));
  // The answer to this mail names the conversation by its uuid: remembered (once), so it routes back here.
  if (!mailedBefore)
    await putThread(conversation.uuid, { account_id: m.account_id, conversation_id: conversation.id, inbox_id: conversation.inbox_id });
  return {
    id: `reply-${m.account_id}-${m.id}`,
    kind: 'conversation_reply',
    ...headers,
    ...replyBody(await replyHtml(m.content ?? ''), m.content ?? '', linked),
  };
}
