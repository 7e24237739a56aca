import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import { TTL_ATTRIBUTE } from '../table.ts';
import { record } from './common.ts';

// The recent delivery attempts of a webhook (AP170–171): one small item per attempt in the webhook's own
// partition, keyed by the attempt's time, written with one put (1 write unit) and expiring ATTEMPT_TTL_DAYS
// after it (a webhook that goes quiet, or is deleted, leaves nothing behind for long). The listing reads the
// newest ATTEMPT_SLOTS. (Before, a counter numbered the attempts into a ring of that many slots: two writes per
// attempt, to keep fewer items a storage of a week's attempts costs next to nothing.)

export const ATTEMPT_SLOTS = 100;
export const ATTEMPT_TTL_DAYS = 7;
/** An error text longer than this is cut, so an attempt stays one write unit. */
const ERROR_CHARS = 400;

export interface DeliveryAttempt {
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

/** AP170: records one attempt. */
export async function recordDeliveryAttempt(accountId: number, webhookId: number, a: DeliveryAttempt): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.webhookDeliveryAttempt(accountId, webhookId, a.at, a.delivery_id, a.attempt),
        type: 'delivery_attempt',
        ...a,
        error: a.error === null ? null : a.error.slice(0, ERROR_CHARS),
        [TTL_ATTRIBUTE]: Math.ceil(a.at / 1000) + ATTEMPT_TTL_DAYS * 86400,
      },
    }),
  );
}

/** AP171: the webhook's newest ATTEMPT_SLOTS attempts still alive, newest first (one Query). */
export async function listDeliveryAttempts(accountId: number, webhookId: number, nowMs = Date.now()): Promise<DeliveryAttempt[]> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.webhookDeliveryAttempts(accountId, webhookId).pk },
      ScanIndexForward: false,
      Limit: ATTEMPT_SLOTS,
    }),
  );
  return (out.Items ?? []).filter((i) => Number(i[TTL_ATTRIBUTE] ?? Infinity) * 1000 > nowMs).map((i) => record<DeliveryAttempt>(i)!);
}
