import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import { TTL_ATTRIBUTE } from '../table.ts';
import { ConflictError, put, transact, type TxItem } from '../transact.ts';
import type { ContactImportRecord, FailedRow } from '#shared/model/contact-imports.ts';
import { getItemNow, queryPrefix } from './common.ts';

// Access patterns of contacts imports (AP365-AP369; docs/data-model.md#keys-and-access-patterns). The job item is
// the only one on the table's stream (type `contact_import`): its insert and every progress change bring the next
// chunk to the dispatcher.

/** AP365: the job item, written once by the import request. */
export async function putContactImport(job: ContactImportRecord): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.contactImport(job.account_id, job.id), type: 'contact_import', ...job, [TTL_ATTRIBUTE]: job.expires_at },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** AP366: the job as it is now (strongly consistent: a chunk starts where the last one recorded it ended). */
export const getContactImport = (accountId: number, id: string) => getItemNow<ContactImportRecord>(keys.contactImport(accountId, id), true);

export interface ChunkProgress {
  processed: number;
  nonIdentifiable: number;
  failed: FailedRow[];
  /** Where the next chunk starts. */
  cursor: number;
}

/**
 * AP367: a chunk's outcome, its refused rows and the job's counts moved on together, only if the job is still
 * where the chunk started (a chunk run twice counts once); false when another run recorded it first.
 */
export async function saveImportChunk(job: ContactImportRecord, p: ChunkProgress): Promise<boolean> {
  const key = keys.contactImport(job.account_id, job.id);
  const items: TxItem[] = [
    {
      item: {
        Update: {
          TableName: '',
          Key: key,
          UpdateExpression:
            'SET #c = :next, processed_records = processed_records + :p, non_identifiable_records = non_identifiable_records + :n, failed_records = failed_records + :f',
          ConditionExpression: '#c = :at AND #s = :processing',
          ExpressionAttributeNames: { '#c': 'cursor', '#s': 'status' },
          ExpressionAttributeValues: {
            ':next': p.cursor,
            ':at': job.cursor,
            ':p': p.processed,
            ':n': p.nonIdentifiable,
            ':f': p.failed.length,
            ':processing': 'processing',
          },
        },
      },
    },
  ];
  if (p.failed.length) {
    items.push({
      item: put({
        ...keys.contactImportFailures(job.account_id, job.id, job.cursor),
        type: 'contact_import_failures',
        rows: p.failed,
        [TTL_ATTRIBUTE]: job.expires_at,
      }),
    });
  }
  try {
    await transact(items);
    return true;
  } catch (err) {
    if (err instanceof ConflictError) return false;
    throw err;
  }
}

/** AP368: every refused row of an import, in file order. */
export async function listImportFailures(accountId: number, id: string): Promise<FailedRow[]> {
  const p = keys.contactImportFailuresOf(accountId, id);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).flatMap((i) => i.rows as FailedRow[]);
}

/** The job finished: `completed`, with its failed-records file when it has one (a finished job is left alone). */
export async function completeContactImport(job: ContactImportRecord, failedKey: string | undefined): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.contactImport(job.account_id, job.id),
        UpdateExpression: failedKey ? 'SET #s = :done, failed_key = :k' : 'SET #s = :done',
        ConditionExpression: '#s = :processing',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':done': 'completed', ':processing': 'processing', ...(failedKey ? { ':k': failedKey } : {}) },
      }),
    );
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
  }
}

/** The row's contact was created by an earlier run of its chunk (its mark exists). */
export class RowAlreadyImported extends Error {}

/**
 * AP369: the mark of a data row that creates a contact nothing else finds again (no email, phone number or
 * identifier), written in the contact's own transaction: a chunk run again after a crash creates it once.
 */
export const importRowMarkItem = (job: ContactImportRecord, row: number): TxItem => ({
  item: put(
    { ...keys.contactImportRow(job.account_id, job.id, row), type: 'contact_import_row', [TTL_ATTRIBUTE]: job.expires_at },
    { ifNew: true },
  ),
  onConflict: () => new RowAlreadyImported(),
});
