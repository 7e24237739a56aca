import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { log } from '../log.ts';

/** Deliveries queue → HTTP receivers. For now it records what it would deliver. */
export async function deliverAll(event: SQSEvent): Promise<SQSBatchResponse> {
  for (const record of event.Records) log.debug('delivery received', { messageId: record.messageId });
  return { batchItemFailures: [] };
}
