import type { DynamoDBRecord } from 'aws-lambda';
import { config } from '#shared/config.ts';
import { recordChange } from '#shared/db/stream.ts';
import { putAuditEntries, type AuditWrite } from '#shared/db/repositories/audit-logs.ts';
import { auditEntryOf } from '#shared/domain/audit/entry.ts';

/**
 * The audit stage (docs/audit.md): the stream forwarder hands it every record of a batch, with old and new images;
 * each change of an audited record becomes one entry, keyed by the record's stream position, so a batch the stream
 * delivers again rewrites the same entries and adds none. One BatchWriteItem per 25 entries.
 */
export async function recordAudits(records: DynamoDBRecord[]): Promise<number> {
  const keepSeconds = config().auditLogRetentionDays * 86_400;
  const writes: AuditWrite[] = [];
  for (const record of records) {
    const sequence = record.dynamodb?.SequenceNumber ?? '';
    const entry = auditEntryOf(recordChange(record), sequence);
    if (entry) writes.push({ entry, sequence, expiresAt: entry.created_at + keepSeconds });
  }
  if (writes.length) await putAuditEntries(writes);
  return writes.length;
}
