import { createHash } from 'node:crypto';
import type { AddressObject, Attachment, HeaderValue } from 'mailparser';
import { sanitizeMailHtml } from '#shared/domain/mail/html.ts';

// One parser for every way a mail comes in (relay, SMTP, SES, IMAP): raw RFC 822 → a normalised mail, as
// Chatwoot's MailPresenter reads one (docs/mail.md#incoming-mail). Pure: no table, no storage.

/** Chatwoot keeps the last 15 attachments of a mail (Message::NUMBER_OF_PERMITTED_ATTACHMENTS). */
export const MAX_MAIL_ATTACHMENTS = 15;
/** An attachment larger than this is left out (the mail itself is bounded at ingress). */
export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;
/** Chatwoot cuts a message's content to 150,000 characters. */
export const MAX_CONTENT_CHARS = 150_000;

export interface MailBody {
  full: string;
  reply: string;
  quoted: string;
}

export interface MailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
  size: number;
  /** Content-ID without brackets (inline parts). */
  cid?: string;
  /** An inline image: embedded in the HTML (by cid) or the text (`[image: name]`) instead of attached. */
  inline: boolean;
}

export interface ParsedMail {
  /** Without angle brackets; a mail without one gets `<sha256 of the mail>@mail.missing`, so a retry dedups. */
  messageId: string;
  inReplyTo?: string;
  references: string[];
  subject: string;
  date: string | null;
  /** Reply-To, else From: lowercased addresses (Chatwoot's `from`). */
  from: string[];
  /** Reply-To, else X-Original-Sender, else From (lowercased): the contact. Undefined when none parses. */
  sender?: string;
  senderName?: string;
  to: string[];
  cc: string[];
  bcc: string[];
  /** X-Original-To (SES and forwarders put the envelope recipient there). */
  originalTo: string[];
  /** X-Forwarded-For as sent: Chatwoot's receiver when `To` is empty. */
  forwardedFor?: string;
  headers: Record<string, string> | null;
  contentType: string;
  multipart: boolean;
  text: MailBody | null;
  html: MailBody | null;
  attachments: MailAttachment[];
  /** All attachments the mail had (Chatwoot's number_of_attachments). */
  attachmentCount: number;
  autoReply: boolean;
  /** A delivery status report (multipart/report; report-type=delivery-status) or X-Failed-Recipients. */
  bounced: boolean;
}

const ADDRESS = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
/** Devise's email regexp, which Chatwoot asks of a sender: bounces without one are dropped. */
export const isMailAddress = (s: string | undefined): s is string => !!s && ADDRESS.test(s);

const stripBrackets = (id: string) => id.trim().replace(/^<+/, '').replace(/>+$/, '');
/**
 * The longest message id taken (RFC 5322 sets none): ids become table keys (the once-per-Message-ID claim, thread
 * lookups), and a key over DynamoDB's 2048 bytes fails every attempt. A longer one is skipped (a Message-ID: as
 * missing).
 */
export const MAX_MAIL_ID_BYTES = 512;
/** References kept, the last ones (the nearest ancestors): each is a lookup when the mail is threaded. */
export const MAX_REFERENCES = 20;
const usableId = (id: string) => id !== '' && Buffer.byteLength(id) <= MAX_MAIL_ID_BYTES;
const idsOf = (v: string | string[] | undefined): string[] =>
  (Array.isArray(v) ? v : v ? v.split(/\s+/) : [])
    .flatMap((x) => x.split(/\s+/))
    .map(stripBrackets)
    .filter(usableId);

function addresses(o: AddressObject | AddressObject[] | undefined): { address: string; name: string }[] {
  const list = Array.isArray(o) ? o : o ? [o] : [];
  return list
    .flatMap((a) => a.value)
    .flatMap((e) => (e.group ? e.group : [e]))
    .filter((e) => e.address)
    .map((e) => ({ address: e.address!.toLowerCase(), name: e.name }));
}

const headerText = (v: HeaderValue | undefined): string | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map((x) => headerText(x as HeaderValue)).join(', ');
  if (typeof v === 'object' && 'value' in v) {
    const s = v as { value: unknown; text?: string };
    return typeof s.text === 'string' ? s.text : String(s.value);
  }
  return String(v);
};

/** First address of a header given as text (`Name <a@b>` or `a@b`). */
const addressIn = (v: string | undefined) =>
  /<([^<>]+)>/
    .exec(v ?? '')?.[1]
    ?.trim()
    .toLowerCase() ?? v?.trim().toLowerCase();

/** Auto-Submitted other than `no`, X-Autoreply: yes (Chatwoot), and Precedence auto_reply/bulk/junk (RFC 3834's convention). */
export function isAutoReply(header: (name: string) => string | undefined): boolean {
  const submitted = header('auto-submitted')?.trim().toLowerCase();
  if (submitted && submitted !== 'no') return true;
  if (header('x-autoreply')?.trim().toLowerCase() === 'yes') return true;
  if (header('x-autorespond')) return true;
  return /^(auto_reply|bulk|junk)$/i.test(header('precedence')?.trim() ?? '');
}

const QUOTE_BLOCKS = ['gmail_quote', 'gmail_extra', 'yahoo_quoted', 'moz-cite-prefix', 'OutlookMessageHeader'];

// The mail libraries load on first parse (dynamic imports): the rooms registry reaches this module (through the
// email room's ingress), so the channel consumers of every other room would carry them otherwise.
const mailLibraries = () =>
  Promise.all([import('mailparser'), import('html-to-text'), import('sanitize-html'), import('email-reply-parser')]).then(
    ([{ simpleParser }, { convert }, { default: sanitizeHtml }, { default: EmailReplyParser }]) => ({
      simpleParser,
      convert,
      sanitizeHtml,
      EmailReplyParser,
    }),
  );
type MailLibraries = Awaited<ReturnType<typeof mailLibraries>>;

/** Chatwoot's HtmlParser.parse_reply: the HTML without the quoted history, as text. */
function htmlReply({ sanitizeHtml, convert }: MailLibraries, html: string): string {
  const withoutQuotes = sanitizeHtml(html, {
    // Everything kept but the quotes (script and style lose their content, sanitize-html's nonTextTags): the result becomes text.
    allowedTags: false,
    allowedAttributes: false,
    allowVulnerableTags: true,
    exclusiveFilter: (frame) =>
      frame.tag === 'blockquote' || QUOTE_BLOCKS.some((c) => (frame.attribs.class ?? '').split(/\s+/).includes(c)),
  });
  return convert(withoutQuotes, { wordwrap: false, selectors: [{ selector: 'img', format: 'skip' }] }).trim();
}

/** EmailReplyTrimmer: the visible reply without quoted lines, `On … wrote:` and signatures. */
function trimReply({ EmailReplyParser }: MailLibraries, text: string): string {
  try {
    return new EmailReplyParser().parseReply(text).trim();
  } catch {
    return text;
  }
}

const truncate = (s: string, n: number) => (s.length > n ? s.slice(0, n) : s);

export async function parseMail(raw: Buffer): Promise<ParsedMail> {
  const libs = await mailLibraries();
  const m = await libs.simpleParser(raw, { skipTextToHtml: true, skipImageLinks: true, skipTextLinks: true, keepCidLinks: true });
  const header = (name: string) => headerText(m.headers.get(name));
  const contentTypeHeader = m.headers.get('content-type') as { value: string; params: Record<string, string> } | undefined;
  const contentType = contentTypeHeader?.value?.toLowerCase() ?? 'text/plain';
  const multipart = contentType.startsWith('multipart/');

  // mailparser derives text from HTML when a mail has no text part; Chatwoot's text_content exists only for a real one.
  const hasTextPart = contentType === 'text/plain' || (multipart && /^content-type:\s*text\/plain/im.test(raw.toString('latin1')));
  const text = hasTextPart && m.text ? m.text : '';
  const html = typeof m.html === 'string' ? m.html : '';

  const replyTo = addresses(m.replyTo);
  const from = addresses(m.from);
  const originalSender = addressIn(header('x-original-sender'));
  const sender = [replyTo[0]?.address, originalSender, from[0]?.address].find(isMailAddress);
  const senderName = (replyTo[0] ?? from[0])?.name || undefined;

  const all: Attachment[] = m.attachments ?? [];
  const attachments = all
    .slice(-MAX_MAIL_ATTACHMENTS)
    .filter((a) => a.size <= MAX_ATTACHMENT_BYTES)
    .map((a) => ({
      filename: a.filename || `attachment_${(a.checksum ?? createHash('md5').update(a.content).digest('hex')).slice(0, 8)}`,
      contentType: (a.contentType || 'application/octet-stream').toLowerCase(),
      content: a.content,
      size: a.size,
      cid: a.cid ? stripBrackets(a.cid) : undefined,
      inline: a.contentDisposition === 'inline' && (a.contentType ?? '').toLowerCase().startsWith('image/'),
    }));

  const reportType = contentTypeHeader?.params?.['report-type']?.toLowerCase();
  const headers = Object.fromEntries(
    (['x-original-from', 'x-original-sender', 'x-forwarded-for'] as const).flatMap((h) => (header(h) ? [[h, header(h)!]] : [])),
  );

  const messageId = stripBrackets(m.messageId ?? '');
  return {
    messageId: usableId(messageId) ? messageId : `${createHash('sha256').update(raw).digest('hex')}@mail.missing`,
    inReplyTo: idsOf(m.inReplyTo)[0],
    references: idsOf(m.references).slice(-MAX_REFERENCES),
    subject: m.subject ?? '',
    date: m.date && !Number.isNaN(m.date.getTime()) ? m.date.toISOString() : null,
    from: (replyTo.length ? replyTo : from).map((a) => a.address),
    sender,
    senderName,
    to: addresses(m.to).map((a) => a.address),
    cc: addresses(m.cc).map((a) => a.address),
    bcc: addresses(m.bcc).map((a) => a.address),
    originalTo: (header('x-original-to') ?? '')
      .split(',')
      .map((s) => addressIn(s))
      .filter(isMailAddress),
    forwardedFor: header('x-forwarded-for')?.trim() || undefined,
    headers: Object.keys(headers).length ? headers : null,
    contentType: header('content-type') ?? 'text/plain',
    multipart,
    text: text.trim() ? { full: text, reply: text, quoted: trimReply(libs, text) } : null,
    html: html.trim()
      ? { full: await sanitizeMailHtml(html), reply: htmlReply(libs, html), quoted: trimReply(libs, htmlReply(libs, html)) }
      : null,
    attachments,
    attachmentCount: all.length,
    autoReply: isAutoReply(header),
    bounced: (contentType === 'multipart/report' && reportType === 'delivery-status') || !!header('x-failed-recipients'),
  };
}

/**
 * The mail's headers alone (what routing reads at ingest): the header block parsed as a mail without a body,
 * so a large mail is not decoded twice.
 */
export function parseMailHeaders(raw: Buffer): Promise<ParsedMail> {
  const end = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  const cut = end >= 0 && (lf < 0 || end < lf) ? end + 4 : lf >= 0 ? lf + 2 : raw.length;
  return parseMail(raw.subarray(0, cut));
}

/** The message's content: the text part, else the HTML's text (Chatwoot's mail_content), cut to 150,000 characters. */
export const mailContent = (mail: ParsedMail): string => truncate(mail.text?.reply ?? mail.html?.reply ?? '', MAX_CONTENT_CHARS);

/** `content_attributes.email` as Chatwoot's MailPresenter#serialized_data. */
export function serializedMail(mail: ParsedMail) {
  return {
    bcc: mail.bcc.length ? mail.bcc : null,
    cc: mail.cc.length ? mail.cc : null,
    content_type: mail.contentType,
    date: mail.date,
    from: mail.from,
    headers: mail.headers,
    html_content: mail.html ?? {},
    in_reply_to: mail.inReplyTo ?? null,
    message_id: mail.messageId,
    multipart: mail.multipart,
    number_of_attachments: mail.attachmentCount,
    references: mail.references,
    subject: mail.subject,
    text_content: mail.text ?? {},
    to: mail.to,
    auto_reply: mail.autoReply,
  };
}

export type SerializedMail = ReturnType<typeof serializedMail>;

/**
 * Inline images embedded as Chatwoot does: with an HTML part, `cid:<id>` in the full HTML becomes the stored
 * file's URL; with only text, `[image: <name>]` in the full text becomes an `<img>` tag.
 */
export function embedInlineImages(email: SerializedMail, images: { cid?: string; filename: string; url: string }[]): SerializedMail {
  const out = structuredClone(email);
  const html = out.html_content as Partial<MailBody>;
  const text = out.text_content as Partial<MailBody>;
  for (const image of images) {
    if (html.full !== undefined) {
      if (image.cid) html.full = html.full.split(`cid:${image.cid}`).join(image.url);
    } else if (text.full !== undefined) {
      text.full = text.full.split(`[image: ${image.filename}]`).join(`<img src="${image.url}" alt="${image.filename}">`);
    }
  }
  return out;
}
