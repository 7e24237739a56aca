import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../keys.ts';
import { db, tableName } from '../client.ts';
import { TTL_ATTRIBUTE } from '../table.ts';
import type { AuditRecord } from '#shared/model/audit.ts';
import { batchWriteAll, queryItems, record } from './common.ts';

/** An entry to store: the record, the stream position that keys it, and when it expires (Unix seconds). */
export interface AuditWrite {
  entry: AuditRecord;
  sequence: string;
  expiresAt: number;
}

/** AP340: audit entries of changes (the stream's audit stage); a change seen again overwrites its own entry, never adds one. */
export async function putAuditEntries(writes: AuditWrite[]): Promise<void> {
  await batchWriteAll(
    writes.map(({ entry, sequence, expiresAt }) => ({
      PutRequest: {
        Item: {
          ...keys.auditEntry(entry.account_id, entry.created_at, sequence),
          type: 'audit_entry',
          ...entry,
          [TTL_ATTRIBUTE]: expiresAt,
        },
      },
    })),
  );
}

/**
 * AP341–342: one page of an account's audit log, newest first, and how many entries it holds. The page is the last
 * `perPage` of the first `page × perPage` entries (a Query reads from the newest; no offset in DynamoDB); the
 * total is a COUNT Query of the partition (billed like reading it: entries are ~0.5 KB, so ~8 per read unit).
 * Expired entries DynamoDB has not removed yet are left out of both.
 */
export async function listAuditEntries(
  accountId: number,
  page: number,
  perPage: number,
  now: number,
): Promise<{ entries: AuditRecord[]; total: number }> {
  const partition = keys.auditLogOf(accountId);
  const live = {
    KeyConditionExpression: 'pk = :p',
    FilterExpression: '#ttl > :now',
    ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
    ExpressionAttributeValues: { ':p': partition.pk, ':now': now },
  };
  const [items, total] = await Promise.all([queryItems({ ...live, ScanIndexForward: false }, page * perPage), countAll(live)]);
  return { entries: items.slice((page - 1) * perPage).map((i) => record<AuditRecord>(i)!), total };
}

async function countAll(input: Record<string, unknown>): Promise<number> {
  let total = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new QueryCommand({ ...input, TableName: tableName(), Select: 'COUNT', ExclusiveStartKey: start }));
    total += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return total;
}
