import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { decodeQueueBody } from '#shared/codec/queue-text.ts';
import { providerConfig } from '#shared/config.ts';
import { getInbox } from '#shared/db/repositories/inboxes.ts';
import { knownMessage, receiveMessage } from '#shared/domain/channels/receive.ts';
import { applyProviderStatus, applyWatermark } from '#shared/domain/channels/status.ts';
import { applyDeletion, applyEdit } from '#shared/domain/channels/edit.ts';
import type { IncomingFile } from '#shared/domain/channels/types.ts';
import { log } from '#shared/log.ts';
import { getObject } from '#shared/storage/objects.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { InboundItem } from '#shared/queues/channels.ts';
import type { ChannelEvent, ChannelRoom } from './channel.ts';
import { hideFor } from '#shared/queues/backoff.ts';
import { inGroupOrder } from '#shared/queues/fifo.ts';
import { MEDIA_DOWNLOAD_MS } from './http.ts';
import { roomByKind } from './rooms.ts';

// The channel-inbound consumer (docs/channels.md#incoming): each queued webhook's payload → the room's events →
// the domain's rules. One contact's webhooks (a queue group) are handled in order; a webhook that fails goes back
// to the queue with the rest of its group and is retried, then dead-lettered; other groups go on. A payload that
// cannot be read is dropped with a warning (no retry can change it). A status whose message is not known yet (it
// overtook the answer to our send) is looked at again a few times, then dropped.

/** How often a webhook with a status of no known message is handled before the status is dropped. */
export const UNKNOWN_STATUS_TRIES = 3;
/** Seconds until such a webhook is handled again, times the tries so far. */
const UNKNOWN_STATUS_WAIT_S = 5;
/** Beyond its files, what a webhook needs for its reads and writes (ms). */
const WEBHOOK_MARGIN_MS = 10_000;
/**
 * The time left an invocation needs to fetch one more file (its download, and the writes after it) or to start
 * one more webhook: at most what the invocation had at its start, less the margin. So the function's timeout does
 * not cut a webhook off (it would be retried, and dead-lettered after five). A room tries a second download only
 * after a quick refusal (Twilio's, without credentials), so one file never takes two downloads' time.
 */
export const mediaNeedMs = (fullMs: number) => Math.min(MEDIA_DOWNLOAD_MS + WEBHOOK_MARGIN_MS, fullMs - WEBHOOK_MARGIN_MS);

/** One invocation: its end, the time it had at its start, whether a webhook was started, the inboxes read. */
interface Clock {
  deadline: number;
  fullMs: number;
  started: boolean;
  inboxes: Map<string, Promise<InboxRecord | undefined>>;
}

async function mediaOf(
  room: ChannelRoom,
  inbox: InboxRecord,
  e: Extract<ChannelEvent, { type: 'message' }>,
  clock: Clock,
): Promise<IncomingFile[]> {
  const files: IncomingFile[] = [];
  for (const ref of e.media) {
    if (clock.deadline - Date.now() < mediaNeedMs(clock.fullMs)) {
      // Stored without the rest, as a file that cannot be had: better than the message retried and lost.
      log.warn('channel media skipped: too little time left', { room: room.kind, inboxId: inbox.id, providerId: e.message.providerId });
      break;
    }
    const file = await room.fetchMedia(inbox, ref).catch((error) => {
      log.warn('channel media not downloaded', { room: room.kind, inboxId: inbox.id, error: String(error) });
      return undefined;
    });
    if (file) files.push(file);
    else log.warn('channel media skipped', { room: room.kind, inboxId: inbox.id, providerId: e.message.providerId });
  }
  return files;
}

/** Handles one event; `later` when it is a status of a message not known (yet). */
async function handleEvent(room: ChannelRoom, inbox: InboxRecord, e: ChannelEvent, clock: Clock): Promise<'later' | undefined> {
  if (e.type === 'skipped') {
    log.info('channel event skipped', { room: room.kind, inboxId: inbox.id, reason: e.reason });
    return;
  }
  if (e.type === 'status') {
    if (e.status.providerId.length > 512) return;
    const outcome = await applyProviderStatus(inbox, e.status);
    log.info('channel status', { room: room.kind, inboxId: inbox.id, status: e.status.status, outcome });
    return outcome === 'unknown' ? 'later' : undefined;
  }
  if (e.type === 'watermark') {
    const applied = await applyWatermark(inbox, e.watermark);
    log.info('channel watermark', { room: room.kind, inboxId: inbox.id, status: e.watermark.status, applied });
    return;
  }
  if (e.type === 'deleted') {
    if (e.deleted.claimKey.length > 512) return;
    const applied = await applyDeletion(inbox, e.deleted);
    log.info('channel deletion', { room: room.kind, inboxId: inbox.id, applied });
    return;
  }
  if (e.type === 'edit') {
    if (e.edit.claimKey.length > 512) return;
    const applied = await applyEdit(inbox, e.edit);
    log.info('channel edit', { room: room.kind, inboxId: inbox.id, applied });
    return;
  }
  // An id no provider gives (longer than a key may be) names nothing to store.
  if ((e.message.claimKey ?? e.message.providerId).length > 512 || e.message.contact.sourceId.length > 255) {
    log.warn('channel message skipped: id too long', { room: room.kind, inboxId: inbox.id });
    return;
  }
  // Known ids are dropped before any download.
  const known = await knownMessage(inbox, e.message.claimKey ?? e.message.providerId);
  if (known.duplicate) {
    log.info('channel message already stored', { room: room.kind, inboxId: inbox.id, providerId: e.message.providerId });
    return;
  }
  const lookup = room.profile;
  const profile = lookup
    ? () =>
        lookup(inbox, e.message.contact).catch((error) => {
          log.warn('channel profile not fetched', { room: room.kind, inboxId: inbox.id, error: String(error) });
          return undefined;
        })
    : undefined;
  const received = await receiveMessage(inbox, e.message, await mediaOf(room, inbox, e, clock), known, profile);
  log.info('channel message received', {
    room: room.kind,
    inboxId: inbox.id,
    created: received.created,
    conversationId: received.conversation?.id,
    messageId: received.message?.id,
  });
}

/** Handles one queued webhook; false when it is to be handled again (it was hidden for a while). */
async function handle(record: SQSRecord, clock: Clock): Promise<boolean> {
  if (clock.started && clock.deadline - Date.now() < mediaNeedMs(clock.fullMs)) {
    // Too little of this invocation left: back to the queue at once (with the rest of its group), for the next one.
    await hideFor(providerConfig().channelInboundQueueUrl!, record.receiptHandle, 0).catch(() => undefined);
    return false;
  }
  clock.started = true;
  const item = decodeQueueBody<InboundItem>(record.body);
  const room = roomByKind(item.room);
  // One read per inbox and invocation (a batch is mostly one inbox's webhooks).
  const inboxKey = `${item.account_id}/${item.inbox_id}`;
  if (!clock.inboxes.has(inboxKey)) clock.inboxes.set(inboxKey, getInbox(item.account_id, item.inbox_id));
  const inbox = await clock.inboxes.get(inboxKey);
  if (!inbox) {
    log.info('channel webhook dropped: inbox deleted', { room: item.room, inboxId: item.inbox_id });
    return true;
  }
  // A room that processes its own items (email): the room's receive does everything.
  if (room.receive) {
    await room.receive(item, inbox);
    return true;
  }
  if (!room.ingest) throw new Error(`the ${item.room} room has no way to read its items`);
  // A body too large for the queue message was stored by the ingest.
  const body = item.body_key ? (await getObject(item.body_key)).toString('utf8') : item.body;
  let events: ChannelEvent[];
  try {
    events = room.ingest.parse(body, item.content_type, inbox);
  } catch (error) {
    log.warn('channel webhook not understood', { room: item.room, inboxId: inbox.id, error: String(error) });
    return true;
  }
  let later = false;
  for (const e of events) later = (await handleEvent(room, inbox, e, clock)) === 'later' || later;
  const tries = Number(record.attributes.ApproximateReceiveCount ?? 1);
  if (!later || tries >= UNKNOWN_STATUS_TRIES) return true;
  // Everything else in the payload is applied again then, which changes nothing (known messages, forward-only statuses).
  await hideFor(providerConfig().channelInboundQueueUrl!, record.receiptHandle, UNKNOWN_STATUS_WAIT_S * tries);
  return false;
}

export function receiveAll(event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse> {
  // Without a Lambda context (a direct call) nothing limits the time.
  const fullMs = context?.getRemainingTimeInMillis() ?? Number.POSITIVE_INFINITY;
  const clock: Clock = { deadline: Date.now() + fullMs, fullMs, started: false, inboxes: new Map() };
  return inGroupOrder(
    event,
    (record) => handle(record, clock),
    (record, error) => log.error('channel webhook failed', { messageId: record.messageId, error }),
  );
}
