import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { keys } from '../keys.ts';
import { TTL_ATTRIBUTE } from '../table.ts';

// Access patterns of request limits (numbers as in the README's access-pattern table).

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
