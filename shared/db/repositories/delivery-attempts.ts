import { PutCommand, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import { TTL_ATTRIBUTE } from '../table.ts';

// The recent delivery attempts of a webhook (AP170–171), in the webhook's own partition. A delivery batch
// writes its attempts at one receiver as ONE item (a list, keyed by the newest attempt's time), so ten
// attempts of ~200 bytes cost 2 write units, not 10; each attempt expires ATTEMPT_TTL_DAYS after it was
// made (the item by TTL a week after its newest). The listing reads the newest ATTEMPT_SLOTS attempts.
// Items written before the batching hold one attempt each (type `delivery_attempt`); they read the same way.

export const ATTEMPT_SLOTS = 100;
export const ATTEMPT_TTL_DAYS = 7;
/** An error text longer than this is cut, so a batch of attempts stays small. */
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

const expiresAt = (atMs: number) => Math.ceil(atMs / 1000) + ATTEMPT_TTL_DAYS * 86400;

/** AP170: records a delivery batch's attempts at one webhook, in one put. */
export async function recordDeliveryAttempts(accountId: number, webhookId: number, attempts: DeliveryAttempt[]): Promise<void> {
  if (!attempts.length) return;
  const list = attempts.map((a) => ({ ...a, error: a.error === null ? null : a.error.slice(0, ERROR_CHARS) })).sort((a, b) => a.at - b.at);
  const newest = list.at(-1)!;
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.webhookDeliveryAttempt(accountId, webhookId, newest.at, newest.delivery_id, newest.attempt),
        type: 'delivery_attempts',
        attempts: list,
        [TTL_ATTRIBUTE]: expiresAt(newest.at),
      },
    }),
  );
}

/** AP170 for one attempt. */
export const recordDeliveryAttempt = (accountId: number, webhookId: number, a: DeliveryAttempt) =>
  recordDeliveryAttempts(accountId, webhookId, [a]);

/** The attempts one stored item holds (a batch's list, or one attempt as written before the batching). */
function attemptsOf(item: Record<string, unknown>): DeliveryAttempt[] {
  if (Array.isArray(item.attempts)) return item.attempts as DeliveryAttempt[];
  const { pk: _p, sk: _s, type: _t, [TTL_ATTRIBUTE]: _x, ...a } = item;
  return [a as unknown as DeliveryAttempt];
}

/**
 * AP171: the webhook's newest ATTEMPT_SLOTS attempts still alive, newest first. Items come newest first by
 * their newest attempt; an item read bounds every unread attempt by its own newest time, so reading stops
 * once ATTEMPT_SLOTS attempts at or after that time are in hand (a few Query pages, sized by the attempts per
 * item seen so far).
 */
export async function listDeliveryAttempts(accountId: number, webhookId: number, nowMs = Date.now()): Promise<DeliveryAttempt[]> {
  const alive = (a: DeliveryAttempt) => expiresAt(a.at) * 1000 > nowMs;
  const found: DeliveryAttempt[] = [];
  let items = 0;
  let start: QueryCommandOutput['LastEvaluatedKey'];
  do {
    const perItem = items ? Math.max(1, found.length / items) : 1;
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.webhookDeliveryAttempts(accountId, webhookId).pk },
        ScanIndexForward: false,
        Limit: Math.min(ATTEMPT_SLOTS, Math.ceil((ATTEMPT_SLOTS - Math.min(found.length, ATTEMPT_SLOTS - 1)) / perItem)),
        ExclusiveStartKey: start,
      }),
    );
    const page = out.Items ?? [];
    for (const item of page) found.push(...attemptsOf(item));
    items += page.length;
    start = out.LastEvaluatedKey;
    const last = page.at(-1);
    // Every unread attempt is at or before the last item's newest attempt.
    const bound = last ? Math.max(...attemptsOf(last).map((a) => a.at)) : -Infinity;
    if (found.filter((a) => a.at >= bound).length >= ATTEMPT_SLOTS) break;
  } while (start);
  return found
    .filter(alive)
    .sort((a, b) => b.at - a.at || (a.delivery_id < b.delivery_id ? 1 : a.delivery_id > b.delivery_id ? -1 : b.attempt - a.attempt))
    .slice(0, ATTEMPT_SLOTS);
}
