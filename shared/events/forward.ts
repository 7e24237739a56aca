import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { config } from '../config.ts';
import { log } from '../log.ts';
import { changeOf, serializeChange, type Change } from './change.ts';
import { sqs } from './queue.ts';


/**
 * Stream → events queue (FIFO). The message group is the item collection (pk), so the changes of one
 * conversation and its messages stay in order; the stream record id deduplicates retried sends.
 */
export async function forwardChanges(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const queueUrl = config().eventsQueueUrl;
  if (!queueUrl) throw new Error('EVENTS_QUEUE_URL is not configured');
  const pending: { change: Change; sequence: string }[] = [];
  for (const record of event.Records) {
    const change = changeOf(record);
    if (change) pending.push({ change, sequence: record.dynamodb?.SequenceNumber ?? '' });
  }
  for (let i = 0; i < pending.length; i += 10) {
    const batch = pending.slice(i, i + 10);
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
    const failed = (out.Failed ?? []).map((f) => Number(f.Id)).sort((a, b) => a - b);
    if (failed.length) {
      // Everything from the first failure on is retried, which keeps per-group order.
      const first = batch[failed[0]];
      log.warn('events queue refused changes', { eventId: first.change.id, failed: out.Failed });
      return { batchItemFailures: [{ itemIdentifier: first.sequence }] };
    }
    for (const { change } of batch) log.debug('change forwarded', { eventId: change.id, type: change.type, action: change.action });
  }
  return { batchItemFailures: [] };
}
