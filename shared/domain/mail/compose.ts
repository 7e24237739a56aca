import { composeContactsExport } from '../contacts/export.ts';
import { composeContactsImport } from '../contacts/import.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { listMessages } from '#shared/db/repositories/messages.ts';
import { config } from '#shared/config.ts';
import { MAX_MAIL_BYTES } from '#shared/queues/mail.ts';
import { encodeQueueBody } from '#shared/codec/queue-text.ts';
import { loadRefs } from '../conversations/view.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import { issuePasswordReset } from '../sessions/reset.ts';
import type { Mail, MailRequestRecord, QueuedMail } from '#shared/model/mail.ts';
import { sealMail } from './sealed.ts';
import { passwordResetMail, transcriptMail, type TranscriptLine } from './render.ts';
import { fileScope, fileUrl } from '#shared/storage/file-urls.ts';

// Outbox item → mail, in the pipeline's dispatcher (it reads the table and holds the token key); the mail
// function only opens what was sealed and sends it.

/** A transcript holds at most this many messages (the newest); Chatwoot mails them all. */
export const TRANSCRIPT_MAX_MESSAGES = 500;

/** Chatwoot's `messages.chat.select(&:conversation_transcriptable?)`: public incoming and outgoing messages. */
const transcriptable = (m: MessageRecord) => !m.private && (m.message_type === 0 || m.message_type === 1);

async function transcript(r: Extract<MailRequestRecord, { kind: 'conversation_transcript' }>): Promise<Mail | undefined> {
  const c = await getConversation(r.account_id, r.conversation_id);
  if (!c) return undefined;
  const messages = (await listMessages(r.account_id, r.conversation_id, { limit: TRANSCRIPT_MAX_MESSAGES })).filter(transcriptable);
  const refs = await loadRefs(r.account_id, undefined, [c], messages);
  const senderName = (m: MessageRecord): string => {
    if (m.sender_type === 'Contact') return refs.contacts.get(m.sender_id ?? -1)?.name ?? '';
    if (m.sender_type === 'User') {
      const u = refs.users.get(m.sender_id ?? -1)?.user;
      return u ? u.display_name || u.name : '';
    }
    if (m.sender_type === 'AgentBot') return refs.bots.get(m.sender_id ?? -1)?.name ?? '';
    return '';
  };
  const lines: TranscriptLine[] = messages.map((m) => ({
    sender: senderName(m),
    content: m.content,
    attachments: m.attachments.map((a) => ({
      name: a.filename || `attachment-${a.id}`,
      url: fileUrl(a.data_url, fileScope.attachment(a.account_id), a.filename),
    })),
    created_at: m.created_at,
  }));
  const inbox = refs.inboxes.get(c.inbox_id);
  const mail = () => transcriptMail({ id: r.id, to: r.to, displayId: c.id, timeZone: inbox?.timezone, lines });
  // A mail must fit on the queue: a very long conversation keeps its newest messages.
  let out = mail();
  while (lines.length > 1 && Buffer.byteLength(encodeQueueBody(out)) > MAX_MAIL_BYTES) {
    lines.splice(0, Math.max(1, Math.floor(lines.length / 10)));
    out = mail();
  }
  return out;
}

/**
 * The mail of an outbox item, as it goes on the queue, or nothing when what it is about is gone (or, for a
 * reset, when no user has the email or a newer request already issued a link).
 */
export async function composeMail(r: MailRequestRecord): Promise<QueuedMail | undefined> {
  switch (r.kind) {
    case 'password_reset': {
      const issued = await issuePasswordReset(r);
      // The link is a credential: it travels sealed on the mail queue and its dead-letter queue.
      return (
        issued && sealMail(passwordResetMail({ id: r.id, to: issued.user.email, token: issued.token, frontendUrl: config().frontendUrl }))
      );
    }
    case 'conversation_transcript':
      return transcript(r);
    case 'contacts_export':
      return composeContactsExport(r);
    case 'contacts_import':
      return composeContactsImport(r);
  }
}
