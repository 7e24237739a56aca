import { createHash } from 'node:crypto';
import { mailConfig } from '#shared/config.ts';
import { findInboxByChannelAddress, getInbox } from '#shared/db/repositories/inboxes.ts';
import { findThreadByUuid } from '#shared/db/repositories/mail-threads.ts';
import { log } from '#shared/log.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { getObject, putObject } from '#shared/storage/objects.ts';
import { parseMailHeaders } from './parse.ts';
import { inboxCandidates, threadHints } from './route.ts';

// Every way a mail comes in (the relay route, the local SMTP listener, SES receiving, IMAP polling) ends here:
// which inbox the mail is for (one or two key lookups over its headers alone), the raw mail kept (inline on the
// queue when small, in the objects store when not), and the mail queued for the channel-inbound consumer, which
// parses and threads it. Nothing else happens while a request or an SMTP session waits.

/** Mails up to this size travel on the queue itself (base64 within SQS's 256 KiB); larger ones are stored. */
export const INLINE_MAIL_BYTES = 150 * 1024;
/** Where stored raw mails go (the bucket's lifecycle rule removes them after a few days). */
export const RAW_MAIL_PREFIX = 'mail/inbound/';
const STORED = 'stored:';
/**
 * The queue groups (lanes) of one inbox's mail: a sender's mails always take the same lane (in order), and one
 * inbox's mail is at most this many groups, so at most this many consumer batches at once. A flood to one inbox from
 * many senders waits in its lanes (deferred, never dropped) while other inboxes' mail is taken past it: FIFO queues
 * hand out messages of groups not in flight, so a group behind a flood is served at the next receive.
 */
export const MAIL_LANES_PER_INBOX = 2;
/** The queue group of a sender's mail within its inbox. */
export const mailLane = (sender: string) => `mail-${createHash('sha256').update(sender).digest()[0] % MAIL_LANES_PER_INBOX}`;

export interface RoutedMail {
  account_id: number;
  inbox_id: number;
  /** Base64 of the raw mail, or `stored:<object key>`. */
  body: string;
  /** The sender's lane (the queue's ordering group within the inbox: mailLane). */
  group: string;
  /** The Message-ID (the queue's deduplication of a mail handed in twice). */
  dedup: string;
}

export type Ingested = { queued: RoutedMail } | { dropped: 'too_large' | 'no_inbox' };

/** `X-Original-To: <recipients>` put first, as Chatwoot's SES ingress does, when the envelope names them. */
export function withOriginalTo(raw: Buffer, envelopeTo: string[]): Buffer {
  if (!envelopeTo.length) return raw;
  return Buffer.concat([Buffer.from(`X-Original-To: ${envelopeTo.join(', ')}\r\n`), raw]);
}

/**
 * The inbox a mail is for: one named by a receiver (the inbox's address or forwarding address, in Chatwoot's
 * order), else the conversation's a `reply+<uuid>` receiver or one of our Message-IDs names (conversation
 * continuity: any inbox). Undefined: Chatwoot's default mailbox, which drops the mail.
 */
export async function routeMail(
  raw: Buffer,
  envelopeTo: string[] = [],
): Promise<{ inbox: InboxRecord; sender: string; messageId: string } | undefined> {
  const headers = await parseMailHeaders(raw);
  const sender = headers.sender ?? '';
  for (const address of inboxCandidates(headers, envelopeTo)) {
    const inbox = await findInboxByChannelAddress(address, mailConfig().inboundMail.domain);
    if (inbox) return { inbox, sender, messageId: headers.messageId };
  }
  for (const hint of threadHints(headers, envelopeTo)) {
    if (!('uuid' in hint)) continue;
    const thread = await findThreadByUuid(hint.uuid);
    const inbox = thread && (await getInbox(thread.account_id, thread.inbox_id));
    if (inbox) return { inbox, sender, messageId: headers.messageId };
  }
  return undefined;
}

/** Routes a mail and puts it in the form the queue carries; `inbox` skips the routing (IMAP: the polled inbox). */
export async function ingestMail(raw: Buffer, opts: { envelopeTo?: string[]; inbox?: InboxRecord } = {}): Promise<Ingested> {
  if (raw.length > mailConfig().inboundMail.maxBytes) return { dropped: 'too_large' };
  const mail = withOriginalTo(raw, opts.envelopeTo ?? []);
  let target: { inbox: InboxRecord; sender: string; messageId: string } | undefined;
  if (opts.inbox) {
    const h = await parseMailHeaders(mail);
    target = { inbox: opts.inbox, sender: h.sender ?? '', messageId: h.messageId };
  } else target = await routeMail(mail, opts.envelopeTo);
  if (!target) {
    log.info('mail dropped: no inbox for its receivers');
    return { dropped: 'no_inbox' };
  }
  const { inbox, sender, messageId } = target;
  let body: string;
  if (mail.length <= INLINE_MAIL_BYTES) body = mail.toString('base64');
  else {
    const key = `${RAW_MAIL_PREFIX}${inbox.account_id}/${inbox.id}/${createHash('sha256').update(mail).digest('hex')}.eml`;
    await putObject(key, mail, 'message/rfc822');
    body = `${STORED}${key}`;
  }
  return { queued: { account_id: inbox.account_id, inbox_id: inbox.id, body, group: mailLane(sender), dedup: messageId } };
}

/** The raw mail a queued item carries. */
export async function rawOf(body: string): Promise<Buffer> {
  return body.startsWith(STORED) ? getObject(body.slice(STORED.length)) : Buffer.from(body, 'base64');
}
