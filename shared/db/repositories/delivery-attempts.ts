import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import { TTL_ATTRIBUTE } from '../table.ts';
import { queryPrefix, record } from './common.ts';

// The recent delivery attempts of a webhook (AP170–171): a ring of ATTEMPT_SLOTS items per webhook, each
// attempt numbered by a counter item and written to slot `number mod ATTEMPT_SLOTS`, so the collection
// never holds more than that many; every item expires ATTEMPT_TTL_DAYS after it was written (a webhook
// that goes quiet, or is deleted, leaves nothing behind for long). Two small writes per attempt, on two partitions
// (the counter's and the ring's), so a busy webhook's attempts spread over two keys.

export const ATTEMPT_SLOTS = 100;
export const ATTEMPT_TTL_DAYS = 7;

export interface DeliveryAttempt {
  /** The attempt's number within the webhook, increasing. */
  seq: number;
  delivery_id: string;
  event: string;
  event_id: string;
  /** Which try of this delivery (1 the first). */
  attempt: number;
  /** HTTP status the receiver answered, or null when there was no answer (network error, timeout, refused). */
  status: number | null;
  /** Milliseconds from sending the request to the answer or the failure. */
  latency_ms: number;
  error: string | null;
  outcome: 'delivered' | 'retry' | 'dead';
  /** Epoch milliseconds of the attempt. */
  at: number;
}

const ttlIn = (nowMs: number) => Math.ceil(nowMs / 1000) + ATTEMPT_TTL_DAYS * 86400;

/** AP170: records one attempt in the webhook's ring (counter, then the slot it names). */
export async function recordDeliveryAttempt(accountId: number, webhookId: number, a: Omit<DeliveryAttempt, 'seq'>): Promise<void> {
  const ttl = ttlIn(a.at);
  const out = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.webhookDeliveryCounter(accountId, webhookId),
      UpdateExpression: 'ADD #n :one SET #type = :type, #ttl = :ttl',
      ExpressionAttributeNames: { '#n': 'n', '#type': 'type', '#ttl': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':one': 1, ':type': 'delivery_counter', ':ttl': ttl },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const seq = Number(out.Attributes?.n ?? 1);
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.webhookDeliveryAttempt(accountId, webhookId, seq % ATTEMPT_SLOTS),
        type: 'delivery_attempt',
        ...a,
        seq,
        [TTL_ATTRIBUTE]: ttl,
      },
    }),
  );
}

/**
 * AP171: the webhook's recorded attempts still alive, newest first, at most ATTEMPT_SLOTS: its ring, and the ring
 * slots written beside the counter before the ring had a partition of its own (two Queries in parallel, of at
 * most ATTEMPT_SLOTS items each; the older ones expire within ATTEMPT_TTL_DAYS).
 */
export async function listDeliveryAttempts(accountId: number, webhookId: number, nowMs = Date.now()): Promise<DeliveryAttempt[]> {
  const parts = [keys.webhookDeliveryAttempts(accountId, webhookId), keys.webhookDeliveryAttemptsBeside(accountId, webhookId)];
  const items = (await Promise.all(parts.map((p) => queryPrefix({ pk: p.pk }, p.skPrefix)))).flat();
  const bySeq = new Map<number, DeliveryAttempt>();
  for (const i of items) {
    if (Number(i[TTL_ATTRIBUTE] ?? Infinity) * 1000 <= nowMs) continue;
    const a = record<DeliveryAttempt>(i)!;
    bySeq.set(a.seq, a);
  }
  return [...bySeq.values()].sort((a, b) => b.seq - a.seq).slice(0, ATTEMPT_SLOTS);
}
