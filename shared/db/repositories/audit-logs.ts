import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../keys.ts';
import { db, tableName } from '../client.ts';
import { TTL_ATTRIBUTE } from '../table.ts';
import type { AuditRecord } from '#shared/model/audit.ts';
import { queryItems, record } from './common.ts';

/** An entry to store: the record, the stream position that keys it, and when it expires (Unix seconds). */
export interface AuditWrite {
  entry: AuditRecord;
  sequence: string;
  expiresAt: number;
}

/**
 * AP340: audit entries of changes (the stream's audit stage), each with its expiry day's counter, in one
 * transaction per expiry day and account (99 entries and the counter). An entry is written only if new (a change
 * the stream hands over again finds its entry and is neither rewritten nor counted twice), and the counter adds the
 * new ones: it counts each entry once however often its batch is delivered.
 */
export async function putAuditEntries(writes: AuditWrite[]): Promise<void> {
  const groups = new Map<string, AuditWrite[]>();
  for (const w of writes) {
    const k = `${w.entry.account_id}:${w.expiresAt}`;
    groups.set(k, [...(groups.get(k) ?? []), w]);
  }
  for (const group of groups.values()) {
    for (let i = 0; i < group.length; i += TX_ENTRIES) await putCounted(group.slice(i, i + TX_ENTRIES));
  }
}

/** A transaction holds at most 100 items: 99 entries and their counter. */
const TX_ENTRIES = 99;

async function putCounted(writes: AuditWrite[]): Promise<void> {
  const { account_id: accountId } = writes[0].entry;
  const { expiresAt } = writes[0];
  let pending = writes;
  for (let attempt = 0; pending.length; attempt++) {
    try {
      await db().send(
        new TransactWriteCommand({
          TransactItems: [
            ...pending.map(({ entry, sequence }) => ({
              Put: {
                TableName: tableName(),
                Item: {
                  ...keys.auditEntry(entry.account_id, entry.created_at, sequence),
                  type: 'audit_entry',
                  ...entry,
                  [TTL_ATTRIBUTE]: expiresAt,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            })),
            {
              Update: {
                TableName: tableName(),
                Key: keys.auditCount(accountId, expiresAt),
                UpdateExpression: 'ADD #n :n SET #type = :type, #ttl = :ttl',
                ExpressionAttributeNames: { '#n': 'entries', '#type': 'type', '#ttl': TTL_ATTRIBUTE },
                ExpressionAttributeValues: { ':n': pending.length, ':type': 'audit_count', ':ttl': expiresAt },
              },
            },
          ],
        }),
      );
      return;
    } catch (err) {
      if (!(err instanceof TransactionCanceledException)) throw err;
      const reasons = err.CancellationReasons ?? [];
      const written = new Set(reasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : [])));
      // Entries written (and counted) by an earlier delivery drop out; a collision with another writer of the
      // counter is tried again.
      if (written.size) pending = pending.filter((_, i) => !written.has(i));
      else if (!reasons.some((r) => r.Code === 'TransactionConflict') || attempt >= 8) throw err;
      else await new Promise((r) => setTimeout(r, Math.random() * 20 * 2 ** attempt));
    }
  }
}

/**
 * AP341 and AP342: one page of an account's audit log, newest first, and how many entries it holds. The page is the
 * last `perPage` of the first `page × perPage` entries (a Query reads from the newest; no offset in DynamoDB); the
 * total is the sum of the counters of the expiry days still ahead (one Query of at most the retention's days of small
 * items). Expired entries DynamoDB has not removed yet are left out of both.
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
  const [items, total] = await Promise.all([queryItems({ ...live, ScanIndexForward: false }, page * perPage), countLive(accountId, now)]);
  return { entries: items.slice((page - 1) * perPage).map((i) => record<AuditRecord>(i)!), total };
}

/** The entries of the expiry days after `now` (an expiry day's entries all expire at its counter's key). */
async function countLive(accountId: number, now: number): Promise<number> {
  const counts = await queryItems({
    KeyConditionExpression: 'pk = :p AND sk > :now',
    ExpressionAttributeValues: { ':p': keys.auditCountsOf(accountId).pk, ':now': keys.auditCount(accountId, Math.floor(now)).sk },
  });
  return counts.reduce((t, c) => t + Number(c.entries ?? 0), 0);
}
