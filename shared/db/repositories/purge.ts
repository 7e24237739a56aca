import { DeleteCommand, GetCommand, QueryCommand, type QueryCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { INDEXES } from '../table.ts';
import * as keys from '../keys.ts';
import type { Key } from '../keys.ts';
import { put, type TxItem } from '../transact.ts';
import { batchWriteAll } from './common.ts';
import { activityQuery } from './conversations.ts';

// The purge's table access: the job item, bounded pages of one partition (or index partition), and
// deletes by key. Reads bypass the pipeline's read cache: the purge must see what is left now.

type Item = Record<string, unknown>;

export type PurgeKind = 'account' | 'inbox';

export interface PurgeJobRecord {
  kind: PurgeKind;
  account_id: number;
  /** The inbox (kind `inbox`). */
  inbox_id?: number;
  /** Members at deletion time (kind `account`): their per-account items (notifications, filters) go too. */
  user_ids?: number[];
  /** The platform app that deleted the account (kind `account`): its rows for the account's own bots go too. */
  app_id?: number;
  /** Steps finished (each step's progress is what is left in the table, so only finished steps are kept). */
  step: number;
  /** Chunks run so far; every chunk changes it, and the change is what brings the next chunk (the stream). */
  chunks: number;
  deleted: number;
  created_at: number;
}

export const purgeJobKey = (j: Pick<PurgeJobRecord, 'kind' | 'account_id' | 'inbox_id'>): Key =>
  j.kind === 'account' ? keys.purgeAccountJob(j.account_id) : keys.purgeInboxJob(j.account_id, j.inbox_id!);

/** The job item, written in the same transaction as the deletion it follows. */
export function purgeJobItem(job: Omit<PurgeJobRecord, 'step' | 'chunks' | 'deleted'>): TxItem {
  const key = purgeJobKey(job);
  return { item: put({ ...key, ...keys.purgeJobIndex(key.pk), type: 'purge_job', step: 0, chunks: 0, deleted: 0, ...job }) };
}

export async function getPurgeJob(key: Key): Promise<PurgeJobRecord | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return out.Item as PurgeJobRecord | undefined;
}

/** AP262: the keys of every pending job. */
export async function listPurgeJobs(): Promise<Key[]> {
  const out: Key[] = [];
  let start: Item | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: INDEXES.gsi1.name,
        KeyConditionExpression: '#p = :p',
        ExpressionAttributeNames: { '#p': INDEXES.gsi1.pk },
        ExpressionAttributeValues: { ':p': keys.purgeJobs().gsi1pk },
        ExclusiveStartKey: start,
      }),
    );
    for (const i of page.Items ?? []) out.push({ pk: String(i.pk), sk: String(i.sk) });
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/** Records a chunk's progress; false when the job is gone (finished by a concurrent run). */
export async function savePurgeProgress(key: Key, progress: { step: number; deleted: number }): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET step = :s, deleted = deleted + :d, chunks = chunks + :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':s': progress.step, ':d': progress.deleted, ':one': 1 },
      }),
    );
    return true;
  } catch (err) {
    if ((err as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw err;
  }
}

export const deletePurgeJob = (key: Key) => db().send(new DeleteCommand({ TableName: tableName(), Key: key }));

/** Where a page is read: a table partition or an index partition, optionally only sort keys with a prefix. */
export type Partition = ({ pk: string } | { gsi1pk: string } | { gsi2pk: string } | { gsi3pk: string }) & { prefix?: string };

/** The first `limit` items of a partition (the purge deletes what it read, so the next page is again the first). */
export async function firstItems(p: Partition, limit: number): Promise<Item[]> {
  const [pkName, pkValue, skName, index] =
    'gsi1pk' in p
      ? [INDEXES.gsi1.pk, p.gsi1pk, INDEXES.gsi1.sk, INDEXES.gsi1.name]
      : 'gsi2pk' in p
        ? [INDEXES.gsi2.pk, p.gsi2pk, INDEXES.gsi2.sk, INDEXES.gsi2.name]
        : 'gsi3pk' in p
          ? [INDEXES.gsi3.pk, p.gsi3pk, INDEXES.gsi3.sk, INDEXES.gsi3.name]
          : ['pk', p.pk, 'sk', undefined];
  const input: Omit<QueryCommandInput, 'TableName' | 'IndexName'> = {
    KeyConditionExpression: p.prefix ? '#p = :p AND begins_with(#s, :s)' : '#p = :p',
    ExpressionAttributeNames: p.prefix ? { '#p': pkName, '#s': skName } : { '#p': pkName },
    ExpressionAttributeValues: p.prefix ? { ':p': pkValue, ':s': p.prefix } : { ':p': pkValue },
    ConsistentRead: index === undefined,
    Limit: Math.max(1, limit),
  };
  // The inbox activity index through the one reader that knows its upgrade (conversations.ts).
  const out =
    index === INDEXES.gsi3.name
      ? await activityQuery(input)
      : await db().send(new QueryCommand({ ...input, TableName: tableName(), IndexName: index }));
  return out.Items ?? [];
}

/** Deletes items by key, 25 a request, in the order given (a request's unprocessed keys are retried first). */
export async function deleteKeys(list: Key[]): Promise<void> {
  const unique = [...new Map(list.map((k) => [`${k.pk}\u0000${k.sk}`, { pk: k.pk, sk: k.sk }])).values()];
  await batchWriteAll(unique.map((Key) => ({ DeleteRequest: { Key } })));
}

/** Removes one attribute of an item, if the item exists (a conversation's slot in its state block). */
export async function removeAttribute(key: Key, attribute: string): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'REMOVE #a',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#a': attribute },
      }),
    );
  } catch (err) {
    if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
  }
}
