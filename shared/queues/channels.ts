import { createHash } from 'node:crypto';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { config } from '#shared/config.ts';
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
  /** The request body as received. */
  body: string;
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

async function sendBatch(queueUrl: string | undefined, name: string, entries: { body: string; group: string; dedup: string }[]) {
  if (!queueUrl) throw new Error(`${name} is not configured`);
  for (let i = 0; i < entries.length; i += 10) {
    const batch = entries.slice(i, i + 10);
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
    config().channelInboundQueueUrl,
    'CHANNEL_INBOUND_QUEUE_URL',
    items.map((item) => ({ body: encodeQueueBody(item), group: inboundGroup(item), dedup: `${item.inbox_id}:${item.dedup}` })),
  );

export const sendGroup = (job: Pick<SendJob, 'account_id' | 'conversation_id'>) => `${job.account_id}:${job.conversation_id}`;

/** A message is queued once per send request: its id (and, for a retry, the retry's time) deduplicates. */
export const enqueueSends = (jobs: SendJob[]) =>
  sendBatch(
    config().channelSendQueueUrl,
    'CHANNEL_SEND_QUEUE_URL',
    jobs.map((job) => ({
      body: encodeQueueBody(job),
      group: sendGroup(job),
      dedup: `${job.account_id}:${job.message_id}${job.retry_of !== undefined ? `:retry:${job.retry_of}` : ''}`,
    })),
  );
