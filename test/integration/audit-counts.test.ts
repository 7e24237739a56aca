import { beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { TTL_ATTRIBUTE } from '#shared/db/table.ts';
import { listAuditEntries, putAuditEntries, type AuditWrite } from '#shared/db/repositories/audit-logs.ts';
import { expiryOf } from '#shared/events/audit.ts';
import type { AuditRecord } from '#shared/model/audit.ts';
import { runtime } from '../support/runtime.ts';

// The audit log's total_entries (docs/audit.md#total_entries): one counter per account and expiry day, added to in the
// entries' own transaction. A batch delivered again (whole, or split otherwise) counts nothing twice; entries past
// their expiry leave the listing and the total together, whether or not DynamoDB has removed them yet.

const DAY = 86_400;

describe('audit entry counts (putAuditEntries, listAuditEntries)', () => {
  const accountId = 810_000_000 + Math.floor(Math.random() * 1_000_000);
  const now = Math.floor(Date.now() / 1000);
  let seq = 0;
  const write = (createdAt: number, expiresAt: number): AuditWrite => {
    const sequence = String(1_000_000 + ++seq);
    const entry: AuditRecord = {
      id: createdAt * 100_000 + seq,
      account_id: accountId,
      auditable_id: seq,
      auditable_type: 'Team',
      action: 'create',
      audited_changes: { name: `t${seq}` },
      user_id: 1,
      user_type: 'User',
      remote_address: null,
      version: 1,
      created_at: createdAt,
    };
    return { entry, sequence, expiresAt };
  };
  const counter = async (expiresAt: number) =>
    (await db().send(new GetCommand({ TableName: tableName(), Key: keys.auditCount(accountId, expiresAt), ConsistentRead: true }))).Item;

  beforeAll(async () => {
    await runtime();
  });

  it('an entry expires at the end of the UTC day its retention ends', () => {
    expect(expiryOf(0, 90 * DAY)).toBe(90 * DAY);
    expect(expiryOf(1, 90 * DAY)).toBe(91 * DAY);
    expect(expiryOf(DAY - 1, 2 * DAY)).toBe(3 * DAY);
    expect(expiryOf(now, 90 * DAY) % DAY).toBe(0);
  });

  it('counts each entry once, however its batch is delivered again; expired days leave the total with the listing', async () => {
    const soon = expiryOf(now, 2 * DAY);
    const later = expiryOf(now, 30 * DAY);
    const a = write(now - 30, soon);
    const b = write(now - 20, soon);
    const c = write(now - 10, later);
    await putAuditEntries([a]);
    // Delivered again with more records (a retried, re-split batch): a is not counted a second time.
    await putAuditEntries([a, b, c]);
    await putAuditEntries([a, b, c]);
    expect((await counter(soon))?.entries).toBe(2);
    expect((await counter(later))?.entries).toBe(1);
    // The counter expires with its entries (DynamoDB removes it; the total already leaves it out).
    expect((await counter(soon))?.[TTL_ATTRIBUTE]).toBe(soon);
    const listed = await listAuditEntries(accountId, 1, 25, now);
    expect(listed.total).toBe(3);
    expect(listed.entries.map((e) => e.id)).toEqual([c, b, a].map((w) => w.entry.id));

    // Past the first expiry day: its two entries leave the page and the total at the same instant.
    const afterSoon = await listAuditEntries(accountId, 1, 25, soon);
    expect(afterSoon.total).toBe(1);
    expect(afterSoon.entries.map((e) => e.id)).toEqual([c.entry.id]);
    // And past the second: nothing.
    expect(await listAuditEntries(accountId, 1, 25, later)).toEqual({ entries: [], total: 0 });
  });

  it('a batch of more than a transaction’s entries for one day is counted whole', async () => {
    const day = expiryOf(now, 3 * DAY);
    const many = Array.from({ length: 130 }, (_, i) => write(now - 200 + i, day));
    await putAuditEntries(many);
    await putAuditEntries(many.slice(60));
    expect((await counter(day))?.entries).toBe(130);
  });
});
