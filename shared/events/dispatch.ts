import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { log } from '../log.ts';
import type { Change } from './change.ts';

/** Events queue → webhooks, automation rules, agent bots. For now it records what it would dispatch. */
export async function dispatchChanges(event: SQSEvent): Promise<SQSBatchResponse> {
  for (const record of event.Records) {
    const change = JSON.parse(record.body) as Change;
    log.debug('change received', { eventId: change.id, type: change.type, action: change.action, pk: change.pk });
  }
  return { batchItemFailures: [] };
}
