import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import * as keys from './keys.ts';

// A maintenance pass over the whole table (the re-seal of secrets, the index backfill): one Scan, page by
// page, whose position and counters are kept in a checkpoint item (`MAINT#<name>`) after every page, so an
// interrupted run resumes where it stopped. `maxPages` bounds one call (a Lambda's time limit).

type Item = Record<string, unknown>;

export interface ScanProgress {
  scanned: number;
  /** Items the visitor changed. */
  changed: number;
  complete: boolean;
}

interface Checkpoint extends ScanProgress {
  /** What the run is for (a key version): a checkpoint of another run starts over. */
  run?: unknown;
  last_key?: Item;
}

export async function checkpointedScan(
  name: string,
  visit: (item: Item) => Promise<boolean>,
  opts: { run?: unknown; pageSize?: number; maxPages?: number } = {},
): Promise<ScanProgress> {
  const key = keys.maintenance(name);
  const saved = (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item as
    | Checkpoint
    | undefined;
  const cp: Checkpoint =
    saved && !saved.complete && saved.run === opts.run ? saved : { run: opts.run, scanned: 0, changed: 0, complete: false };
  for (let page = 0; opts.maxPages === undefined || page < opts.maxPages; page++) {
    const out = await db().send(
      new ScanCommand({ TableName: tableName(), Limit: opts.pageSize ?? 100, ExclusiveStartKey: cp.last_key, ConsistentRead: true }),
    );
    for (const item of out.Items ?? []) {
      if (item.pk === key.pk) continue;
      cp.scanned++;
      if (await visit(item)) cp.changed++;
    }
    cp.last_key = out.LastEvaluatedKey;
    cp.complete = !out.LastEvaluatedKey;
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...key, type: 'maintenance', ...cp } }));
    if (cp.complete) break;
  }
  return { scanned: cp.scanned, changed: cp.changed, complete: cp.complete };
}

/**
 * A maintenance pass's change of one scanned item: `SET` the given expressions only while the conditions
 * hold (the item as scanned). False when they no longer do: a writer changed the item meanwhile.
 */
export async function setIfUnchanged(
  item: Item,
  change: { sets: string[]; conditions: string[]; names: Record<string, string>; values: Record<string, unknown> },
): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: item.pk, sk: item.sk },
        UpdateExpression: `SET ${change.sets.join(', ')}`,
        ConditionExpression: change.conditions.join(' AND '),
        ExpressionAttributeNames: change.names,
        ExpressionAttributeValues: change.values,
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}
