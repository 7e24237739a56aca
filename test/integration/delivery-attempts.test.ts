import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import {
  ATTEMPT_SLOTS,
  ATTEMPT_TTL_DAYS,
  listDeliveryAttempts,
  recordDeliveryAttempt,
  recordDeliveryAttempts,
} from '#shared/db/repositories/delivery-attempts.ts';
import { TTL_ATTRIBUTE } from '#shared/db/table.ts';
import { runtime } from '../support/runtime.ts';

// A webhook's delivery attempts: one item per delivery batch and webhook (one write, no counter), in the
// webhook's own partition, expiring after a week; the listing is the newest ATTEMPT_SLOTS, newest first,
// without the expired ones, across items whose times interleave and items of the older one-attempt shape.

describe('webhook delivery attempts', () => {
  beforeAll(async () => {
    await runtime();
  });

  const start = Date.now();
  const attempt = (n: number, at = start + n) => ({
    delivery_id: `d${n}`,
    event: 'message_created',
    event_id: `e${n}`,
    attempt: 1,
    status: 200,
    latency_ms: 5,
    error: null,
    outcome: 'delivered' as const,
    at,
  });

  it('writes one expiring item per attempt and lists the newest first, at most ATTEMPT_SLOTS', async () => {
    const accountId = 900_000 + Math.floor(Math.random() * 90_000);
    const webhookId = 7;
    await recordDeliveryAttempt(accountId, webhookId, { ...attempt(1), status: null, error: 'x'.repeat(5000), outcome: 'retry' });
    // Two attempts in the same millisecond are two items.
    await recordDeliveryAttempt(accountId, webhookId, attempt(2, start + 5));
    await recordDeliveryAttempt(accountId, webhookId, attempt(3, start + 5));
    const stored = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.webhookDeliveryAttempts(accountId, webhookId).pk },
      }),
    );
    expect(stored.Items).toHaveLength(3);
    const first = stored.Items![0];
    expect(first).toMatchObject({ type: 'delivery_attempts', attempts: [{ delivery_id: 'd1', outcome: 'retry', status: null }] });
    // Cut, so a batch of attempts stays small; and it expires a week after it was made.
    expect(String(first.attempts[0].error).length).toBe(400);
    expect(first[TTL_ATTRIBUTE]).toBe(Math.ceil((start + 1) / 1000) + ATTEMPT_TTL_DAYS * 86400);
    // No counter item any more.
    const counter = await db().send(
      new GetCommand({ TableName: tableName(), Key: { pk: keys.webhookDeliveryRingPartitions(accountId, webhookId)[0], sk: 'COUNT' } }),
    );
    expect(counter.Item).toBeUndefined();

    const listed = await listDeliveryAttempts(accountId, webhookId);
    expect(listed.map((a) => a.delivery_id)).toEqual(['d3', 'd2', 'd1']);
    expect(listed[2]).toMatchObject({ event: 'message_created', event_id: 'e1', attempt: 1, latency_ms: 5, at: start + 1 });
    // Expired but not yet removed by DynamoDB's TTL sweep: not listed.
    expect(
      (await listDeliveryAttempts(accountId, webhookId, start + (ATTEMPT_TTL_DAYS * 86400 + 2) * 1000)).map((a) => a.delivery_id),
    ).toEqual([]);

    for (let n = 4; n < ATTEMPT_SLOTS + 10; n++) await recordDeliveryAttempt(accountId, webhookId, attempt(n, start + 10 + n));
    const full = await listDeliveryAttempts(accountId, webhookId);
    expect(full).toHaveLength(ATTEMPT_SLOTS);
    expect(full[0].delivery_id).toBe(`d${ATTEMPT_SLOTS + 9}`);
    expect(full.at(-1)!.delivery_id).toBe('d10');
  });

  it("writes a batch's attempts as one item and lists interleaved batches and old single items in time order", async () => {
    const accountId = 900_000 + Math.floor(Math.random() * 90_000);
    const webhookId = 8;
    const t = Date.now();
    // Two batches running side by side: their times interleave.
    const a = [1, 3, 5, 7].map((n) => attempt(n, t + n));
    const b = [2, 4, 6].map((n) => ({ ...attempt(n, t + n), outcome: 'retry' as const, status: 503, error: 'HTTP 503' }));
    await recordDeliveryAttempts(accountId, webhookId, b);
    await recordDeliveryAttempts(accountId, webhookId, a);
    // An attempt item as written before the batching (one attempt, its fields at the top).
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.webhookDeliveryAttempt(accountId, webhookId, t, 'd0', 1),
          type: 'delivery_attempt',
          ...attempt(0, t),
          [TTL_ATTRIBUTE]: Math.ceil(t / 1000) + ATTEMPT_TTL_DAYS * 86400,
        },
      }),
    );
    const stored = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.webhookDeliveryAttempts(accountId, webhookId).pk },
      }),
    );
    expect(stored.Items).toHaveLength(3);
    const listed = await listDeliveryAttempts(accountId, webhookId);
    expect(listed.map((x) => x.delivery_id)).toEqual(['d7', 'd6', 'd5', 'd4', 'd3', 'd2', 'd1', 'd0']);
    expect(listed[1]).toMatchObject({ outcome: 'retry', status: 503, error: 'HTTP 503', at: t + 6 });
    expect(listed[7]).toMatchObject({ delivery_id: 'd0', event_id: 'e0', outcome: 'delivered', at: t });

    // Many batches: the newest ATTEMPT_SLOTS across them, the older ones cut.
    for (let k = 0; k < 15; k++) {
      await recordDeliveryAttempts(
        accountId,
        webhookId,
        Array.from({ length: 10 }, (_, n) => attempt(100 + k * 10 + n, t + 100 + k * 10 + n)),
      );
    }
    const full = await listDeliveryAttempts(accountId, webhookId);
    expect(full).toHaveLength(ATTEMPT_SLOTS);
    expect(full[0].delivery_id).toBe('d249');
    expect(full.at(-1)!.delivery_id).toBe('d150');
  });
});
