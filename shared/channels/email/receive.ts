import { createHash } from 'node:crypto';
import { mailConfig } from '#shared/config.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { findProviderMessage } from '#shared/db/repositories/channels.ts';
import { findReference, findThreadByUuid, putReference, putThread } from '#shared/db/repositories/mail-threads.ts';
import { receiveMessage, knownMessage } from '#shared/domain/channels/receive.ts';
import type { IncomingFile } from '#shared/domain/channels/types.ts';
import { log } from '#shared/log.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { putObject } from '#shared/storage/objects.ts';
import { signedFileUrl } from '#shared/storage/file-urls.ts';
import { embedInlineImages, mailContent, parseMail, serializedMail, type ParsedMail } from './parse.ts';
import { dropReason, threadHints } from './route.ts';

// An incoming mail, queued by ./ingest.ts, becomes a message (docs/mail.md#threading), as Chatwoot's mailboxes:
// the conversation by the four strategies (receiver uuid, In-Reply-To, References, else new), the sender checks
// for a new conversation, inline images embedded, the rest attached; the message through the channel core's
// receive (one per Message-ID in the inbox).

/** Inline images are linked from the stored HTML for as long as Chatwoot's blob links live (they do not expire). */
const INLINE_LINK_SECONDS = 10 * 365 * 24 * 3600;

/** The conversation the mail threads into, first hit wins; undefined for a new one. */
export async function threadOf(mail: ParsedMail, inbox: InboxRecord, envelopeTo: string[] = []): Promise<ConversationRecord | undefined> {
  for (const hint of threadHints(mail, envelopeTo)) {
    let target: { account_id: number; conversation_id: number } | undefined;
    if ('uuid' in hint) {
      const t = await findThreadByUuid(hint.uuid);
      // References name only this inbox's conversations (Chatwoot restricts them to the channel's inbox).
      if (t && (hint.by !== 'references' || t.inbox_id === inbox.id)) target = t;
    } else {
      target = await findProviderMessage(inbox.id, hint.messageId);
    }
    if (!target || target.account_id !== inbox.account_id) continue;
    const c = await getConversation(target.account_id, target.conversation_id, true);
    if (c) return c;
  }
  // Chatwoot's last try before a new conversation: one that began with the same In-Reply-To.
  if (mail.inReplyTo) {
    const ref = await findReference(inbox.id, mail.inReplyTo);
    if (ref) return getConversation(ref.account_id, ref.conversation_id, true);
  }
  return undefined;
}

export type MailOutcome =
  | { created: true; conversationId: number; messageId: number }
  | { created: false; reason: 'duplicate' | 'no_sender' | 'own_sender' | 'not_threaded' | 'not_created' };

/** Stores the inline images and embeds their links (with an HTML part by cid, else `[image: name]` in the text). */
async function embedInline(mail: ParsedMail, inbox: InboxRecord) {
  const email = serializedMail(mail);
  const inline = mail.text || mail.html ? mail.attachments.filter((a) => a.inline) : [];
  if (!inline.length) return email;
  const images = await Promise.all(
    inline.map(async (a) => {
      const name = a.filename.replace(/[^\w.-]+/g, '_') || 'image';
      const key = `attachments/${inbox.account_id}/mail-inline/${createHash('sha256').update(a.content).digest('hex').slice(0, 32)}/${name}`;
      await putObject(key, a.content, a.contentType);
      return { cid: a.cid, filename: a.filename, url: signedFileUrl(key, name, Math.floor(Date.now() / 1000) + INLINE_LINK_SECONDS) };
    }),
  );
  return embedInlineImages(email, images);
}

export async function receiveMail(inbox: InboxRecord, raw: Buffer, envelopeTo: string[] = []): Promise<MailOutcome> {
  const mail = await parseMail(raw);
  const known = await knownMessage(inbox, mail.messageId);
  if (known.duplicate) return { created: false, reason: 'duplicate' };
  const conversation = await threadOf(mail, inbox, envelopeTo);
  if (!conversation) {
    // A new conversation needs an email inbox and a real sender (not a bounce, not our own notifications).
    if (inbox.channel_type !== 'Channel::Email') return { created: false, reason: 'not_threaded' };
    const reason = dropReason(mail, mailConfig().mailerSenderEmail);
    if (reason) {
      log.info('mail dropped', { inboxId: inbox.id, reason });
      return { created: false, reason };
    }
  }
  const email = await embedInline(mail, inbox);
  const files: IncomingFile[] = mail.attachments
    .filter((a) => !a.inline || !(mail.text || mail.html))
    .map((a) => ({ filename: a.filename, content_type: a.contentType, data: a.content }));
  const sender = mail.sender ?? '';
  const received = await receiveMessage(
    inbox,
    {
      providerId: mail.messageId,
      contact: {
        sourceId: sender,
        name: mail.senderName || sender.split('@')[0],
        email: sender,
        additional_attributes: { source_id: `email:${mail.messageId}` },
      },
      content: mailContent(mail),
      contentType: 'incoming_email',
      conversation: conversation ?? 'new',
      contentAttributes: { email, cc_email: mail.cc.length ? mail.cc : null, bcc_email: mail.bcc.length ? mail.bcc : null },
      conversationAttributes: {
        source: 'email',
        in_reply_to: mail.inReplyTo ?? null,
        auto_reply: mail.autoReply,
        mail_subject: mail.subject,
        initiated_at: { timestamp: new Date().toUTCString() },
      },
    },
    files,
    known,
  );
  if (!received.created || !received.conversation || !received.message) return { created: false, reason: 'not_created' };
  const c = received.conversation;
  const target = { account_id: c.account_id, conversation_id: c.id, inbox_id: c.inbox_id };
  await putThread(c.uuid, target);
  if (!conversation && mail.inReplyTo) await putReference(mail.inReplyTo, target);
  return { created: true, conversationId: c.id, messageId: received.message.id };
}
