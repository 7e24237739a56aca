import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { ATTEMPT_SLOTS, listDeliveryAttempts, recordDeliveryAttempt } from '#shared/db/repositories/delivery-attempts.ts';
import { runtime } from '../support/runtime.ts';

// A webhook's attempt ring sits in a partition of its own beside its counter (two keys per attempt, not one);
// slots written beside the counter before that still list, merged by number, until they expire.

describe('webhook delivery attempts', () => {
  beforeAll(async () => {
    await runtime();
  });

  const attempt = (n: number) => ({
    delivery_id: `d${n}`,
    event: 'message_created',
    event_id: `e${n}`,
    attempt: 1,
    status: 200,
    latency_ms: 5,
    error: null,
    outcome: 'delivered' as const,
    at: Date.now(),
  });

  it('writes the counter and the ring slot on two partitions, and lists the older slots beside the counter too', async () => {
    const accountId = 900_000 + Math.floor(Math.random() * 90_000);
    const webhookId = 7;
    // A slot as written before the ring had its own partition: number 1 of the counter, beside it.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookDeliveryCounter(accountId, webhookId),
        UpdateExpression: 'ADD n :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    const beside = keys.webhookDeliveryAttemptsBeside(accountId, webhookId);
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          pk: beside.pk,
          sk: `${beside.skPrefix}0001`,
          type: 'delivery_attempt',
          ...attempt(1),
          seq: 1,
          ttl: Math.ceil(Date.now() / 1000) + 3600,
        },
      }),
    );
    await recordDeliveryAttempt(accountId, webhookId, attempt(2));
    await recordDeliveryAttempt(accountId, webhookId, attempt(3));
    const listed = await listDeliveryAttempts(accountId, webhookId);
    // The newer ones in the ring's partition, the older slot beside the counter, newest first.
    expect(listed.map((a) => [a.delivery_id, a.seq])).toEqual([
      ['d3', 3],
      ['d2', 2],
      ['d1', 1],
    ]);
    expect(keys.webhookDeliveryAttempt(accountId, webhookId, 0).pk).not.toBe(keys.webhookDeliveryCounter(accountId, webhookId).pk);

    for (let n = 4; n < ATTEMPT_SLOTS + 10; n++) await recordDeliveryAttempt(accountId, webhookId, attempt(n));
    const full = await listDeliveryAttempts(accountId, webhookId);
    expect(full).toHaveLength(ATTEMPT_SLOTS);
    expect(full[0].delivery_id).toBe(`d${ATTEMPT_SLOTS + 9}`);
  });
});
