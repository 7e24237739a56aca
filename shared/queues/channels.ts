import { createHash } from 'node:crypto';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { providerConfig } from '#shared/config.ts';
import { encodeQueueBody } from '#shared/codec/queue-text.ts';
import { sqs } from './client.ts';

// The two channel queues (docs/channels.md#queues): provider webhooks waiting to be processed, and outgoing
// messages waiting to be sent. Both FIFO: inbound grouped by inbox and contact, sends by conversation.

/** A provider's webhook as the ingest function received it (raw, so a fixed parser can process it again). */
export interface InboundItem {
  /** The room (shared/channels/rooms.ts) whose parser reads it. */
  room: string;
  account_id: number;
  inbox_id: number;
  /** The request body as received ('' when it is stored: `body_key`). */
  body: string;
  /** The objects-store key of a body too large for a queue message (shared/channels/ingest.ts stores it). */
  body_key?: string;
  content_type: string;
  received_at: number;
  /** Ordering scope within the inbox: the contact's address at the provider. */
  group: string;
  /** The provider's ids of what the payload carries: a provider's retry of it is dropped by the queue. */
  dedup: string;
}

/** One outgoing message to send. */
export interface SendJob {
  account_id: number;
  inbox_id: number;
  conversation_id: number;
  message_id: number;
  queued_at: number;
  /** A retry an agent asked for: the time of the message's reset (each retry is its own job). */
  retry_of?: number;
}

const hashed = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * SQS's limit for one message and for one SendMessageBatch together (256 KiB: the long-standing default; queues may
 * allow more, none less). A larger entry is refused, a larger batch fails whole.
 */
export const MAX_QUEUE_BYTES = 256 * 1024;

/** The queue body's size in bytes (what SQS counts). */
export const queueBytes = (body: string) => Buffer.byteLength(body, 'utf8');

type Entry = { body: string; group: string; dedup: string };

/** The entries in batches of at most 10 and MAX_QUEUE_BYTES together, in order. */
export function batchesOf(entries: Entry[]): Entry[][] {
  const batches: Entry[][] = [];
  let batch: Entry[] = [];
  let bytes = 0;
  for (const e of entries) {
    const size = queueBytes(e.body);
    if (size > MAX_QUEUE_BYTES) throw new Error(`a queue message of ${size} bytes is over SQS's ${MAX_QUEUE_BYTES}`);
    if (batch.length === 10 || bytes + size > MAX_QUEUE_BYTES) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(e);
    bytes += size;
  }
  if (batch.length) batches.push(batch);
  return batches;
}

async function sendBatch(queueUrl: string | undefined, name: string, entries: Entry[]) {
  if (!queueUrl) throw new Error(`${name} is not configured`);
  for (const batch of batchesOf(entries)) {
    const out = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((e, n) => ({
          Id: String(n),
          MessageBody: e.body,
          MessageGroupId: e.group.slice(0, 128),
          MessageDeduplicationId: hashed(e.dedup),
        })),
      }),
    );
    if (out.Failed?.length) throw new Error(`${name} refused ${out.Failed.length} messages: ${out.Failed[0].Message}`);
  }
}

export const inboundGroup = (item: Pick<InboundItem, 'inbox_id' | 'group'>) => `${item.inbox_id}:${item.group}`;

export const enqueueInbound = (items: InboundItem[]) =>
  sendBatch(
    providerConfig().channelInboundQueueUrl,
    'CHANNEL_INBOUND_QUEUE_URL',
    items.map((item) => ({ body: encodeQueueBody(item), group: inboundGroup(item), dedup: `${item.inbox_id}:${item.dedup}` })),
  );

export const sendGroup = (job: Pick<SendJob, 'account_id' | 'conversation_id'>) => `${job.account_id}:${job.conversation_id}`;

/** A message is queued once per send request: its id (and, for a retry, the retry's time) deduplicates. */
export const enqueueSends = (jobs: SendJob[]) =>
  sendBatch(
    providerConfig().channelSendQueueUrl,
    'CHANNEL_SEND_QUEUE_URL',
    jobs.map((job) => ({
      body: encodeQueueBody(job),
      group: sendGroup(job),
      dedup: `${job.account_id}:${job.message_id}${job.retry_of !== undefined ? `:retry:${job.retry_of}` : ''}`,
    })),
  );
