import { createHash } from 'node:crypto';
import { encodeQueueBody } from '#shared/codec/queue-text.ts';
import { log } from '#shared/log.ts';
import { enqueueInbound, queueBytes, type InboundItem } from '#shared/queues/channels.ts';
import { putObject } from '#shared/storage/objects.ts';
import {
  contactKeyOf,
  eventIdOf,
  refusedAnswer,
  type ChannelRoom,
  type RoomWebhook,
  type WebhookAnswer,
  type WebhookRequest,
} from './channel.ts';

// A provider's webhook arriving (docs/channels.md#incoming): an app-wide signature before anything is read, the
// inbox by one key lookup, the inbox's signature over the raw bytes (a failed check is 401 and writes nothing),
// the raw payload onto the channel-inbound queue (grouped by inbox and contact so one contact's events stay in
// order, deduplicated by the provider's ids), and at once the answer the provider expects. The payload is
// processed by the inbound consumer (inbound.ts).

export const SIGNATURE_REFUSED: WebhookAnswer = refusedAnswer(401, 'Invalid signature', 'signature', 'invalid_signature');

/**
 * A webhook for `room`: the function names its own room's webhook side (`<room>/webhook.ts`), so that it loads no
 * other room's code and none of its room's sends.
 */
export async function ingestWebhook(room: RoomWebhook, req: WebhookRequest): Promise<WebhookAnswer> {
  const kind = room.kind;
  const ingest = room.ingest;
  const early = await ingest.handshake?.(req);
  if (early) return early;
  if (!ingest.verify && !ingest.verifyRequest) throw new Error(`the ${kind} room checks no signature`);
  // An app-wide signature first: a forged payload naming many inboxes costs no lookup.
  if (ingest.verifyRequest && !ingest.verifyRequest(req)) {
    log.warn('channel webhook refused: bad signature', { room: kind });
    return SIGNATURE_REFUSED;
  }
  // A payload may be for several inboxes (Meta batches several pages' entries): each gets its own queued copy.
  const inboxes = ingest.inboxes ? await ingest.inboxes(req) : [await ingest.inbox(req)].filter((i) => i !== undefined);
  // Chatwoot answers a webhook for no inbox as it answers any other, and drops it.
  if (!inboxes.length) {
    log.info('channel webhook for no inbox', { room: kind, path: req.path });
    return ingest.accepted;
  }
  for (const inbox of inboxes) {
    if (ingest.verify && !ingest.verify(req, inbox)) {
      log.warn('channel webhook refused: bad signature', { room: kind, accountId: inbox.account_id, inboxId: inbox.id });
      return SIGNATURE_REFUSED;
    }
  }
  const body = req.body.toString('utf8');
  const contentType = req.headers['content-type'] ?? '';
  const items: InboundItem[] = [];
  for (const inbox of inboxes) {
    let events: ReturnType<NonNullable<ChannelRoom['ingest']>['parse']>;
    try {
      events = ingest.parse(body, contentType, inbox);
    } catch (error) {
      // Nothing a retry could change: taken, logged, dropped.
      log.warn('channel webhook not understood', { room: kind, inboxId: inbox.id, error: String(error) });
      return ingest.accepted;
    }
    const group = events.map(contactKeyOf).find((k) => k !== undefined);
    if (!group) continue;
    items.push({
      room: kind,
      account_id: inbox.account_id,
      inbox_id: inbox.id,
      body,
      content_type: contentType,
      received_at: Date.now(),
      group,
      // Many events' ids are carried as their hash: the item stays small whatever the payload holds.
      dedup: digestIfLong(events.map(eventIdOf).sort().join('|')),
    });
  }
  if (items.length) await enqueueInbound(await fitted(items, body));
  return ingest.accepted;
}

const digestIfLong = (ids: string) => (ids.length > 512 ? createHash('sha256').update(ids).digest('hex') : ids);

/** Where webhook bodies too large for a queue message wait for the consumer (the bucket expires them). */
const STORED_WEBHOOK_PREFIX = 'channel/inbound/';
/** A queued item up to this size carries its body; a larger one names the stored body (room for the batch's others). */
const INLINE_ITEM_BYTES = 200 * 1024;

/**
 * The items as the queue can carry them: a body whose queued item would be too large (escaping can double it, and
 * several inboxes' copies share one batch) is stored once, under its hash, and the items name it instead.
 */
async function fitted(items: InboundItem[], body: string): Promise<InboundItem[]> {
  // Escaping makes a byte at most six (`\u0001`), and the item repeats the body's ids (`dedup`): most webhooks are
  // far below any doubt, and are not encoded twice.
  if (Buffer.byteLength(body) * 12 + 4096 <= INLINE_ITEM_BYTES) return items;
  if (items.every((i) => queueBytes(encodeQueueBody(i)) <= INLINE_ITEM_BYTES)) return items;
  const key = `${STORED_WEBHOOK_PREFIX}${createHash('sha256').update(body).digest('hex')}.txt`;
  await putObject(key, Buffer.from(body, 'utf8'), 'text/plain; charset=utf-8');
  return items.map((i) => ({ ...i, body: '', body_key: key }));
}
