import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { ATTEMPT_SLOTS, ATTEMPT_TTL_DAYS, listDeliveryAttempts, recordDeliveryAttempt } from '#shared/db/repositories/delivery-attempts.ts';
import { TTL_ATTRIBUTE } from '#shared/db/table.ts';
import { runtime } from '../support/runtime.ts';

// A webhook's delivery attempts: one item per attempt (one write, no counter), in the webhook's own partition,
// expiring after a week; the listing is the newest ATTEMPT_SLOTS, newest first, without the expired ones.

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
    expect(first).toMatchObject({ type: 'delivery_attempt', delivery_id: 'd1', outcome: 'retry', status: null });
    // Cut, so an attempt stays one write unit; and it expires a week after it was made.
    expect(String(first.error).length).toBe(400);
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
});
