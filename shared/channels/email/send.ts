import { mailConfig } from '#shared/config.ts';
import { putThread } from '#shared/db/repositories/mail-threads.ts';
import type { OutgoingContext } from '#shared/domain/channels/send.ts';
import { replySurroundings } from '#shared/domain/mail/continuity.ts';
import { replyHtml } from '#shared/domain/mail/html.ts';
import { replyBody, replyHeaders, splitAttachments } from '#shared/domain/mail/reply.ts';
import { sendHeaderedMail, type HeaderedMail } from '#shared/outbound/mail.ts';
import { smtpTransport, type SmtpSettings } from '#shared/outbound/mail-servers.ts';
import { fileScope, fileUrl, storedKeyOf } from '#shared/storage/file-urls.ts';
import { getObject } from '#shared/storage/objects.ts';
import type { SendOutcome } from '../channel.ts';

// An agent's reply in an email inbox, mailed (docs/mail.md#replies): Chatwoot's headers, files attached within
// 20 MB and linked beyond, through the inbox's SMTP server when it has one, else the service's transport (SES
// deployed, SMTP_ADDRESS locally). The Message-ID it went out with becomes the message's `source_id`. An SMTP
// refusal (5xx) fails the message with the server's words; a 4xx answer or a network error is retried by the
// channel-send consumer.

/** A transport error as the send consumer takes it: permanent (the server said no) or worth retrying. */
export function outcomeOfError(err: unknown): SendOutcome {
  const e = err as {
    responseCode?: number;
    response?: string;
    code?: string;
    name?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
  };
  const text = (e.response || e.message || String(err)).trim();
  if (typeof e.responseCode === 'number') return e.responseCode >= 500 ? { refused: text } : { retry: text };
  // SES: a rejected mail or an unverified sender will not pass on a retry; throttling and 5xx may.
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined) return status >= 500 || status === 429 ? { retry: text } : { refused: text };
  if (e.code === 'EAUTH' || e.code === 'EENVELOPE' || /No mail transport/.test(text)) return { refused: text };
  return { retry: text };
}

export async function sendEmailReply(ctx: OutgoingContext): Promise<SendOutcome> {
  const { inbox, conversation, message, contact } = ctx;
  const c = mailConfig();
  const { mailedBefore: _mailed, ...surroundings } = await replySurroundings(message);
  const headers = replyHeaders({
    inbox,
    account_id: message.account_id,
    conversation,
    message,
    contactEmail: contact?.email,
    mailerSender: c.mailerSenderEmail,
    inboundDomain: c.inboundMail.domain,
    ...surroundings,
  });
  if (!headers.to.length) return { refused: 'The contact has no email address' };
  const files = message.attachments
    .filter((a) => a.data_url)
    .map((a) => ({
      filename: a.filename,
      content_type: a.content_type,
      size: a.file_size,
      url: fileUrl(a.data_url, fileScope.attachment(message.account_id), a.filename),
      key: storedKeyOf(a.data_url, true),
    }));
  const { attached, linked } = splitAttachments(files);
  const mail: HeaderedMail = {
    ...headers,
    ...replyBody(await replyHtml(message.content ?? ''), message.content ?? '', linked),
    attachments: await Promise.all(
      attached
        .filter((f) => f.key)
        .map(async (f) => ({ filename: f.filename, contentType: f.content_type, content: await getObject(f.key!) })),
    ),
  };
  // The answer names the conversation by its uuid (reply+<uuid>, our Message-ID): remembered, so it threads back.
  // Before the mail goes out (writing it twice is harmless): nothing that fails after the send has it mailed again.
  try {
    await putThread(conversation.uuid, {
      account_id: conversation.account_id,
      conversation_id: conversation.id,
      inbox_id: conversation.inbox_id,
    });
  } catch (err) {
    return { retry: `The conversation's mail thread was not recorded: ${String(err)}` };
  }
  const settings = (inbox.email_settings ?? {}) as SmtpSettings & { smtp_enabled?: boolean };
  try {
    const via = inbox.channel_type === 'Channel::Email' && settings.smtp_enabled === true ? await smtpTransport(settings) : undefined;
    return { sourceId: await sendHeaderedMail(mail, via) };
  } catch (err) {
    return outcomeOfError(err);
  }
}
