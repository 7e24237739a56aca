import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import type { Key } from '../keys.ts';
import { TTL_ATTRIBUTE } from '../table.ts';

// Access patterns of request limits (numbers as in docs/data-model.md#keys-and-access-patterns).

/**
 * AP175: adds a container's lump of requests to a scope's window and answers the window's total, in one
 * UpdateItem (1 WCU). The item expires a minute after its window; its type starts no event.
 */
export async function addToRateWindow(scope: string, windowStart: number, n: number, expiresAt: number): Promise<number> {
  const out = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.rateWindow(scope, windowStart),
      UpdateExpression: 'ADD n :n SET #t = :ttl, #type = :type',
      ExpressionAttributeNames: { '#t': TTL_ATTRIBUTE, '#type': 'type' },
      ExpressionAttributeValues: { ':n': n, ':ttl': expiresAt, ':type': 'rate_window' },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.n ?? n);
}

/**
 * AP122: takes one of a throttle window's `max` slots — `ADD n 1` only while `n` is below `max`, in one
 * conditional UpdateItem — so each request's verdict comes from its own increment and parallel requests
 * can never all pass. False when the window is full (nothing is added). The item expires after `expiresAt`.
 */
export async function takeThrottleSlot(key: Key, max: number, expiresAt: number, type = 'throttle_window'): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'ADD n :one SET #t = :ttl, #type = :type',
        ConditionExpression: 'attribute_not_exists(n) OR n < :max',
        ExpressionAttributeNames: { '#t': TTL_ATTRIBUTE, '#type': 'type' },
        ExpressionAttributeValues: { ':one': 1, ':max': max, ':ttl': expiresAt, ':type': type },
      }),
    );
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}

/** AP122: gives a taken slot back (an attempt that turned out not to count); never below zero. */
export async function releaseThrottleSlot(key: Key): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'ADD n :less',
        ConditionExpression: 'n > :zero',
        ExpressionAttributeValues: { ':less': -1, ':zero': 0 },
      }),
    );
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
  }
}
