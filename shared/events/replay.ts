import { createHash } from 'node:crypto';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type Message,
  type MessageAttributeValue,
} from '@aws-sdk/client-sqs';
import { config } from '#shared/config.ts';
import { log } from '#shared/log.ts';
import { deliveryGroup, type Delivery } from '#shared/queues/deliveries.ts';
import { sqs } from '#shared/queues/client.ts';
import { decodeQueueBody, encodeQueueBody } from '#shared/codec/queue-text.ts';
import { replayStreamFailure } from './stream-failures.ts';

// Replaying a failure queue: every entry is handed to its source's handler and deleted once handled;
// an entry that fails again stays (hidden for the rest of the run, so one run tries each entry once).
// Entries a run leaves alone (dead-lettered before `since`, or not matching the filter) stay in the queue.
// A source is one line in REPLAY_SOURCES.

export interface ReplaySource {
  /** What the entries are, for the command's help. */
  description: string;
  /** Re-dispatches one entry; throws when it cannot be handled yet. */
  replay(body: string, message: Message): Promise<unknown>;
}

/**
 * A dead-lettered delivery back on the deliveries queue: the same delivery (same id, so receivers that
 * saw it deduplicate; same group, so it keeps its place behind the conversation's earlier deliveries), with
 * a fresh retry window from now. A new deduplication id: SQS would drop a resend of the old one within its
 * 5-minute window.
 */
export async function replayDelivery(body: string): Promise<{ deliveryId: string }> {
  const queueUrl = config().deliveriesQueueUrl;
  if (!queueUrl) throw new Error('DELIVERIES_QUEUE_URL is not configured');
  const delivery = decodeQueueBody<Delivery>(body);
  if (!delivery?.id || !delivery.target) throw new Error('not a delivery');
  const replayedAt = Date.now();
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: encodeQueueBody({ ...delivery, replayed_at: replayedAt }),
      MessageGroupId: deliveryGroup(delivery),
      MessageDeduplicationId: createHash('sha256').update(`${delivery.id}:replay:${replayedAt}`).digest('hex'),
    }),
  );
  log.info('delivery replayed', { deliveryId: delivery.id, eventId: delivery.event_id, target: delivery.target });
  return { deliveryId: delivery.id };
}

export const REPLAY_SOURCES = {
  'stream-failures': {
    description: 'table stream records the stream function could not forward (its on-failure destination)',
    replay: (body) => replayStreamFailure(body),
  },
  deliveries: {
    description: 'dead-lettered webhook, API inbox and agent bot deliveries (the deliveries DLQ), sent again with their ids',
    replay: (body) => replayDelivery(body),
  },
} satisfies Record<string, ReplaySource>;

export interface ReplayResult {
  replayed: number;
  /** Entries left in the queue because they were dead-lettered before `since` or did not match. */
  skipped: number;
  failed: { messageId: string; error: string }[];
}

export interface ReplayOptions {
  limit?: number;
  /** Only entries that reached the queue at or after this time (epoch ms): dead-lettered, or sent. */
  since?: number;
  /** Only entries this accepts (e.g. one account's or one webhook's deliveries). */
  accept?: (body: string) => boolean;
}

/** Seconds an entry that failed again stays hidden, so the run does not meet it twice. */
const HIDE_SECONDS = 300;

/** When an entry reached the failure queue: the deliver function's stamp, else the queue's send time. */
export const queuedAt = (m: Message) => Number(m.MessageAttributes?.dead_lettered_at?.StringValue ?? m.Attributes?.SentTimestamp ?? 0);

export async function replayQueue(queueUrl: string, source: ReplaySource, opts: ReplayOptions = {}): Promise<ReplayResult> {
  const result: ReplayResult = { replayed: 0, skipped: 0, failed: [] };
  const limit = opts.limit ?? Infinity;
  const fifo = queueUrl.endsWith('.fifo');
  // Entries left alone. In a FIFO queue a hidden entry would hold back the rest of its group, so it is moved
  // to the group's end (sent again, then deleted) and hidden only when met a second time; a standard
  // queue's entry is just hidden. Hidden entries are made visible again when the run ends.
  const moved = new Set<string>();
  const hidden: string[] = [];
  const leave = async (m: Message) => {
    if (fifo && !moved.has(m.MessageId!)) {
      const attributes: Record<string, MessageAttributeValue> = { ...(m.MessageAttributes ?? {}) };
      attributes.dead_lettered_at ??= { DataType: 'Number', StringValue: String(queuedAt(m)) };
      const out = await sqs().send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: m.Body,
          MessageAttributes: attributes,
          MessageGroupId: m.Attributes?.MessageGroupId,
          MessageDeduplicationId: createHash('sha256').update(`${m.MessageId}:moved:${Date.now()}`).digest('hex'),
        }),
      );
      moved.add(out.MessageId!);
      await sqs().send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
      return;
    }
    hidden.push(m.ReceiptHandle!);
  };
  try {
    while (result.replayed + result.failed.length < limit) {
      const out = await sqs().send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.max(1, Math.min(10, limit - result.replayed - result.failed.length)),
          VisibilityTimeout: HIDE_SECONDS,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      const messages = out.Messages ?? [];
      if (!messages.length) break;
      for (const m of messages) {
        const body = m.Body ?? '';
        const wanted = (opts.since === undefined || queuedAt(m) >= opts.since) && (!opts.accept || opts.accept(body));
        if (!wanted) {
          if (!moved.has(m.MessageId!)) result.skipped++;
          await leave(m);
          continue;
        }
        try {
          await source.replay(body, m);
          await sqs().send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
          result.replayed++;
        } catch (err) {
          log.warn('replay failed, entry kept', { messageId: m.MessageId, error: err });
          result.failed.push({ messageId: m.MessageId ?? '', error: (err as Error).message });
        }
      }
    }
  } finally {
    for (const handle of hidden) {
      await sqs()
        .send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: handle, VisibilityTimeout: 0 }))
        .catch(() => undefined);
    }
  }
  return result;
}
