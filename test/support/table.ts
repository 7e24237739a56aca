import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/db/client.ts';

export type Item = Record<string, unknown>;

/** Every item of the table (this worker's table: only this worker's files write to it), read consistently. */
export async function scanAll(): Promise<Item[]> {
  const out: Item[] = [];
  let start: Item | undefined;
  do {
    const page = await db().send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start, ConsistentRead: true }));
    out.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}
