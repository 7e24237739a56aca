import type { DynamoDBRecord } from 'aws-lambda';
import { pipelineConfig } from '#shared/config.ts';
import { recordChange } from '#shared/db/stream.ts';
import { putAuditEntries, type AuditWrite } from '#shared/db/repositories/audit-logs.ts';
import { auditEntryOf } from '#shared/domain/audit/entry.ts';

const DAY = 86_400;

/**
 * When an entry expires: the end of the UTC day its retention ends, so every entry of one expiry day expires at the
 * same instant and the day's counter (AP342) counts exactly what the listing still pages through (docs/audit.md).
 */
export const expiryOf = (createdAt: number, keepSeconds: number) => Math.ceil((createdAt + keepSeconds) / DAY) * DAY;

/**
 * The audit stage (docs/audit.md): the stream forwarder hands it every record of a batch, with old and new images;
 * each change of an audited record becomes one entry, keyed by the record's stream position, so a batch the stream
 * delivers again finds its entries written and counts none of them again. One transaction per expiry day and 99 entries.
 */
export async function recordAudits(records: DynamoDBRecord[]): Promise<number> {
  const keepSeconds = pipelineConfig().auditLogRetentionDays * 86_400;
  const writes: AuditWrite[] = [];
  for (const record of records) {
    const sequence = record.dynamodb?.SequenceNumber ?? '';
    const entry = auditEntryOf(recordChange(record), sequence);
    if (entry) writes.push({ entry, sequence, expiresAt: expiryOf(entry.created_at, keepSeconds) });
  }
  if (writes.length) await putAuditEntries(writes);
  return writes.length;
}
