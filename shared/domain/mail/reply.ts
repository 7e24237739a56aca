import { senderAddress } from '#shared/outbound/mail.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';

// An agent's reply as a mail, with Chatwoot's headers (ConversationReplyMailer#email_reply, its helper and
// ReferencesHeaderBuilder): pure, from what the sender loaded (docs/mail.md#replies). The email channel's replies
// and the conversation continuity mails of web widget and API conversations are both made here.

/** Chatwoot attaches files while their total stays within 20 MB; larger ones are linked in the body. */
export const MAX_ATTACHED_BYTES = 20 * 1024 * 1024;

export interface ReplyInput {
  inbox: Pick<InboxRecord, 'name' | 'business_name' | 'sender_name_type' | 'email' | 'email_settings' | 'channel_type'>;
  account_id: number;
  conversation: { id: number; uuid: string; additional_attributes: Record<string, unknown> };
  message: { id: number; content: string | null; content_attributes: Record<string, unknown> };
  /** The replying agent's name (Chatwoot's `available_name`), else the assignee's. */
  agentName?: string;
  /** The contact's email: the recipient when the message names none (`to_emails`). */
  contactEmail?: string | null;
  /** `content_attributes.email` of the conversation's last incoming mail (its Message-ID and References). */
  lastIncoming?: { message_id?: string | null; references?: string[] | null };
  /** The conversation's incoming and outgoing messages (Chatwoot's `chat` scope), this one included: `Re:` from the second. */
  chatCount: number;
  mailerSender: string;
  inboundDomain?: string;
}

export interface ReplyHeaders {
  from: string;
  replyTo: string;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  /** With brackets. */
  messageId: string;
  inReplyTo: string;
  references: string[];
}

const quoteName = (name: string) => `"${name.replace(/["\\]/g, '\\$&')}"`;
const list = (v: unknown): string[] =>
  (Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : []).map((s) => String(s).trim()).filter(Boolean);
const bracket = (id: string) => `<${id.replace(/^<|>$/g, '')}>`;

/** `"<agent> from <business>" <address>` (friendly) or `"<business>" <address>` (professional). */
function named(input: ReplyInput, address: string): string {
  const business = input.inbox.business_name || input.inbox.name;
  const name = input.inbox.sender_name_type === 'professional' ? business : `${input.agentName || 'Notifications'} from ${business}`;
  return `${quoteName(name)} <${address}>`;
}

export function replyHeaders(input: ReplyInput): ReplyHeaders {
  const settings = input.inbox.email_settings ?? {};
  const isEmailInbox = input.inbox.channel_type === 'Channel::Email';
  const channelEmail = isEmailInbox ? input.inbox.email : null;
  const sender = senderAddress(input.mailerSender).toLowerCase();
  // With its own SMTP, the inbox sends as itself; otherwise the service's sender (an address SES may send from).
  const fromAddress = channelEmail && settings.smtp_enabled === true ? channelEmail : sender;
  const replyAddress =
    channelEmail && settings.imap_enabled === true
      ? channelEmail
      : input.inboundDomain
        ? `reply+${input.conversation.uuid}@${input.inboundDomain}`
        : (channelEmail ?? sender);
  const domain = input.inboundDomain ?? (channelEmail ?? sender).split('@')[1];

  const attrs = input.message.content_attributes;
  const to = list(attrs.to_emails);
  const subjectOf = input.conversation.additional_attributes.mail_subject;
  const subject =
    typeof subjectOf === 'string' && subjectOf
      ? input.chatCount > 1 && !/^re:/i.test(subjectOf)
        ? `Re: ${subjectOf}`
        : subjectOf
      : `[#${input.conversation.id}] New messages on this conversation`;
  const inReplyTo = input.lastIncoming?.message_id
    ? bracket(input.lastIncoming.message_id)
    : `<account/${input.account_id}/conversation/${input.conversation.uuid}@${domain}>`;
  const references = [...new Set([...(input.lastIncoming?.references ?? []).map(bracket), inReplyTo])];

  return {
    from: named(input, fromAddress),
    replyTo: named(input, replyAddress),
    to: to.length ? to : input.contactEmail ? [input.contactEmail] : [],
    cc: list(attrs.cc_emails),
    bcc: list(attrs.bcc_emails),
    subject,
    messageId: `<conversation/${input.conversation.uuid}/messages/${input.message.id}@${domain}>`,
    inReplyTo,
    references,
  };
}

export interface OutgoingFile {
  filename: string;
  content_type: string;
  size: number;
  /** A signed link to the file (for files linked rather than attached). */
  url: string;
}

/** Files attached in order while the total stays within 20 MB; the rest are linked. */
export function splitAttachments<T extends OutgoingFile>(files: T[]): { attached: T[]; linked: T[] } {
  const attached: T[] = [];
  const linked: T[] = [];
  let total = 0;
  for (const f of files) {
    if (total + f.size <= MAX_ATTACHED_BYTES) {
      attached.push(f);
      total += f.size;
    } else linked.push(f);
  }
  return { attached, linked };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The mail's text and HTML as Chatwoot's email_reply views lay them out (no layout around them, so no header or
 * "Powered by" footer): the HTML is the message's Markdown rendered (`contentHtml`), the text part the message as
 * written; then, when files are too large to attach, an "Attachments:" line and one link per file (HTML: a paragraph
 * each, opening in a new tab; text: `name: url`).
 */
export function replyBody(contentHtml: string, content: string, linked: OutgoingFile[]): { html: string; text: string } {
  if (!linked.length) return { html: contentHtml, text: content };
  const links = linked.map((f) => `<p><a href="${escapeHtml(f.url)}" target="_blank">${escapeHtml(f.filename)}</a></p>`).join('');
  return {
    html: `${contentHtml}<p>Attachments:</p>${links}`,
    text: [content, ['Attachments:', ...linked.map((f) => `${f.filename}: ${f.url}`)].join('\n')].filter(Boolean).join('\n\n'),
  };
}
