import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import { sqs } from './client.ts';

// Retrying by visibility: a consumer that failed a message hides it for the backoff, and the queue hands it back
// then (webhook deliveries, channel sends).

const MAX_BACKOFF_SECONDS = 6 * 3600;

/** Exponential backoff with jitter: somewhere in the upper half of base·2^(attempt-1), capped. */
export function backoffSeconds(attempt: number, base: number, random = Math.random()): number {
  const ceiling = Math.min(MAX_BACKOFF_SECONDS, base * 2 ** Math.max(0, attempt - 1));
  return Math.max(1, Math.round(ceiling / 2 + (ceiling / 2) * random));
}

/** The message comes back after `seconds` (SQS caps visibility at 12 hours). */
export async function hideFor(queueUrl: string, receiptHandle: string, seconds: number): Promise<void> {
  await sqs().send(
    new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: Math.min(seconds, 43_200) }),
  );
}
