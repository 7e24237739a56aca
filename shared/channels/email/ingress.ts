import { timingSafeEqual } from 'node:crypto';
import type { SESEvent } from 'aws-lambda';
import { mailConfig } from '#shared/config.ts';
import { log } from '#shared/log.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { enqueueInbound } from '#shared/queues/channels.ts';
import { getObjectFrom } from '#shared/storage/objects.ts';
import { refusedAnswer, type WebhookAnswer, type WebhookRequest } from '../channel.ts';
import { pollImapInboxes } from './imap.ts';
import { ingestMail, type Ingested } from './ingest.ts';
import { relayPassword } from './relay-password.ts';

// The ways a mail comes in (docs/mail.md#ways-in), each handing the raw mail to ./ingest.ts and the result to
// the channel-inbound queue: Chatwoot's ActionMailbox relay route, SES receiving (deployed), the local SMTP
// listener (infra/local/smtp-listener.ts) and IMAP polling (./imap.ts).

export const EMAIL_ROOM = 'email';

/** Puts a routed mail on the channel-inbound queue (FIFO: grouped by inbox and sender lane, deduplicated by Message-ID). */
export async function queueMail(r: Ingested): Promise<Ingested> {
  if ('queued' in r) {
    const q = r.queued;
    await enqueueInbound([
      {
        room: EMAIL_ROOM,
        account_id: q.account_id,
        inbox_id: q.inbox_id,
        body: q.body,
        content_type: 'message/rfc822',
        received_at: Date.now(),
        group: q.group,
        dedup: q.dedup,
      },
    ]);
  }
  return r;
}

/** A mail from any way in: routed, kept, queued. */
export const takeMail = async (raw: Buffer, opts: { envelopeTo?: string[]; inbox?: InboxRecord } = {}) =>
  queueMail(await ingestMail(raw, opts));

const sameSecret = (a: string, b: string) => {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * `POST /rails/action_mailbox/relay/inbound_emails` as Rails' relay ingress: basic auth `actionmailbox` with
 * RAILS_INBOUND_EMAIL_PASSWORD (deployed its secret; none configured: 404), a `message/rfc822` body (else 415), 204
 * once queued.
 */
export async function relayInbound(req: WebhookRequest): Promise<WebhookAnswer> {
  const password = await relayPassword();
  if (!password) return refusedAnswer(404, 'The relay ingress is not configured (RAILS_INBOUND_EMAIL_PASSWORD)', '', 'not_found');
  const [scheme, encoded] = (req.headers.authorization ?? '').split(' ');
  const [user, ...rest] = Buffer.from(encoded ?? '', 'base64')
    .toString('utf8')
    .split(':');
  if (scheme?.toLowerCase() !== 'basic' || user !== 'actionmailbox' || !sameSecret(rest.join(':'), password)) {
    return refusedAnswer(401, 'HTTP Basic: Access denied.', 'authorization', 'unauthorized');
  }
  if ((req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase() !== 'message/rfc822') {
    return refusedAnswer(415, 'The body must be a raw mail (Content-Type: message/rfc822)', 'content-type', 'unsupported_media_type');
  }
  if (!req.body.length) return refusedAnswer(422, 'The body is empty', 'body', 'required');
  const r = await takeMail(req.body);
  if ('dropped' in r && r.dropped === 'too_large')
    return refusedAnswer(413, 'The mail is larger than INBOUND_MAIL_MAX_BYTES', 'body', 'too_large');
  return { status: 204 };
}

/**
 * SES receiving (deployed): a receipt rule stores each mail in the mail bucket (S3 action, `<prefix><SES message
 * id>`) and then invokes this (Lambda action); the rule's recipients become X-Original-To, as Chatwoot's SES ingress.
 */
export async function sesInbound(event: SESEvent): Promise<void> {
  const { bucket, prefix } = mailConfig().inboundMail.ses ?? {};
  if (!bucket) throw new Error('The SES mail bucket is not configured');
  for (const record of event.Records) {
    const { mail, receipt } = record.ses;
    const raw = await getObjectFrom(bucket, `${prefix ?? ''}${mail.messageId}`);
    const r = await takeMail(raw, { envelopeTo: receipt.recipients });
    log.info('ses mail taken', { sesMessageId: mail.messageId, outcome: 'queued' in r ? 'queued' : r.dropped });
  }
}

/** The scheduled IMAP poll: each new mail of each IMAP inbox goes the way of any other, to its polled inbox. */
export const pollImap = () => pollImapInboxes(async (raw, inbox) => void (await takeMail(raw, { inbox })));
