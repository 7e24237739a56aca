import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { config } from '#shared/config.ts';
import { log } from '#shared/log.ts';
import { encodeQueueBody } from '#shared/codec/queue-text.ts';
import { recordChange } from '#shared/db/stream.ts';
import { eventsOf } from '#shared/domain/events/domain-events.ts';
import { EVENT_SOURCE_TYPES, isContactImport, isMailRequest, isPurgeJob, type Change } from '#shared/model/change.ts';
import { sqs } from '#shared/queues/client.ts';
import { recordAudits } from './audit.ts';

/**
 * The change the forwarder puts on the events queue, or nothing for a change that means no event: a
 * type that never does, or a change that announces nothing (a conversation's new last message, seen
 * times, a contact touched within the same second). One chat message is then one queue message.
 */
export function changeOf(record: DynamoDBRecord): Change | undefined {
  const change = recordChange(record);
  if (!EVENT_SOURCE_TYPES.includes(change.type)) return undefined;
  if (change.type === 'mail') return isMailRequest(change) ? change : undefined;
  if (change.type === 'purge_job') return isPurgeJob(change) ? change : undefined;
  if (change.type === 'contact_import') return isContactImport(change) ? change : undefined;
  return eventsOf(change).length ? change : undefined;
}

const MAX_MESSAGE_BYTES = 240 * 1024;

/** The change as an events-queue body (escaped for SQS, measured after escaping). */
export function serializeChange(change: Change): string {
  const body = encodeQueueBody(change);
  if (Buffer.byteLength(body) <= MAX_MESSAGE_BYTES) return body;
  const { newImage: _n, oldImage: _o, ...rest } = change;
  return encodeQueueBody({ ...rest, truncated: true });
}

/**
 * Stream → events queue (FIFO). The message group is the item collection (pk), so the changes of one
 * conversation and its messages stay in order; the stream record id deduplicates retried sends.
 * The first record that could not be sent is reported with everything after it (order within the
 * shard holds); the event source mapping retries it and, should it keep failing, isolates it and sends
 * it alone to the failure destination (infra/pipeline.ts STREAM_SOURCE).
 */
export async function forwardChanges(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const queueUrl = config().eventsQueueUrl;
  if (!queueUrl) throw new Error('EVENTS_QUEUE_URL is not configured');
  // Audit entries first (idempotent: a retried batch rewrites the same ones); should they fail, the batch is retried whole.
  try {
    await recordAudits(event.Records);
  } catch (error) {
    const first = event.Records[0]?.dynamodb?.SequenceNumber;
    if (!first) throw error;
    log.warn('audit entries not written', { sequenceNumber: first, error });
    return { batchItemFailures: [{ itemIdentifier: first }] };
  }
  const pending: { change: Change; sequence: string }[] = [];
  for (const record of event.Records) {
    const change = changeOf(record);
    if (change) pending.push({ change, sequence: record.dynamodb?.SequenceNumber ?? '' });
  }
  for (let i = 0; i < pending.length; i += 10) {
    const batch = pending.slice(i, i + 10);
    let failedAt: number;
    let reason: unknown;
    try {
      const out = await sqs().send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map(({ change }, n) => ({
            Id: String(n),
            MessageBody: serializeChange(change),
            MessageGroupId: change.pk,
            MessageDeduplicationId: change.id.slice(0, 128),
          })),
        }),
      );
      const failed = (out.Failed ?? []).sort((a, b) => Number(a.Id) - Number(b.Id));
      failedAt = failed.length ? Number(failed[0].Id) : -1;
      reason = failed[0];
    } catch (err) {
      // Nothing of this send is known to have arrived: retry from its first entry.
      failedAt = 0;
      reason = err;
    }
    if (failedAt >= 0) {
      const first = batch[failedAt];
      log.warn('events queue refused a change', {
        eventId: first.change.id,
        sequenceNumber: first.sequence,
        type: first.change.type,
        pk: first.change.pk,
        error: reason,
      });
      return { batchItemFailures: [{ itemIdentifier: first.sequence }] };
    }
    for (const { change } of batch) log.debug('change forwarded', { eventId: change.id, type: change.type, action: change.action });
  }
  return { batchItemFailures: [] };
}
