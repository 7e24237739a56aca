import { createHash } from 'node:crypto';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { config } from '#shared/config.ts';
import { sqs } from './client.ts';
import { encodeQueueBody } from '#shared/codec/queue-text.ts';

/** One event for one receiver, as it waits on the deliveries queue. */
export interface Delivery {
  /** Stable across attempts: X-Chatwoot-Delivery and webhook-id. */
  id: string;
  event: string;
  event_id: string;
  url: string;
  /**
   * Only on deliveries queued before secrets left the queue. Now the deliver function reads the signing
   * secret of `target` (webhook, API inbox, agent bot) from the table and unseals it.
   */
  secret?: string | null;
  /** The serialized payload, identical on every attempt. */
  body: string;
  target: { kind: 'webhook' | 'api_inbox' | 'agent_bot' | 'automation'; id: number };
  account_id: number;
  /** Ordering scope (conversation or contact key): deliveries of one scope to one receiver are in order. */
  scope: string;
  /** Epoch milliseconds of the first enqueue. */
  created_at: number;
  /** Epoch milliseconds of the last replay from the dead-letter queue: the retry window starts again there. */
  replayed_at?: number;
}

const dedupId = (id: string) => createHash('sha256').update(id).digest('hex');

export const deliveryGroup = (d: Delivery) => `${d.target.kind}:${d.target.id}:${d.scope}`.slice(0, 128);

/** Enqueues deliveries; the delivery id deduplicates a retried dispatch of the same event. */
export async function enqueueDeliveries(deliveries: Delivery[]): Promise<void> {
  const queueUrl = config().deliveriesQueueUrl;
  if (!queueUrl) throw new Error('DELIVERIES_QUEUE_URL is not configured');
  for (let i = 0; i < deliveries.length; i += 10) {
    const batch = deliveries.slice(i, i + 10);
    const out = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((d, n) => ({
          Id: String(n),
          MessageBody: encodeQueueBody(d),
          MessageGroupId: deliveryGroup(d),
          MessageDeduplicationId: dedupId(d.id),
        })),
      }),
    );
    if (out.Failed?.length) throw new Error(`deliveries queue refused ${out.Failed.length} messages: ${out.Failed[0].Message}`);
  }
}
