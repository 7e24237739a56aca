import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { mailConfig } from '#shared/config.ts';
import type { QueuedMail } from '#shared/model/mail.ts';
import { sqs } from './client.ts';
import { encodeQueueBody } from '#shared/codec/queue-text.ts';

/** Largest mail body put on the mail queue (SQS takes 256 KiB; room for the attributes). */
export const MAX_MAIL_BYTES = 240 * 1024;

/**
 * Dispatcher → mail queue (FIFO: each mail its own group, its request id the deduplication id, so a retried
 * dispatch of the same outbox item sends one mail).
 */
export async function enqueueMails(mails: QueuedMail[]): Promise<void> {
  const queueUrl = mailConfig().mailQueueUrl;
  if (!queueUrl) throw new Error('MAIL_QUEUE_URL is not configured');
  for (let i = 0; i < mails.length; i += 10) {
    const batch = mails.slice(i, i + 10);
    const out = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((m, n) => ({
          Id: String(n),
          MessageBody: encodeQueueBody(m),
          MessageGroupId: m.id,
          MessageDeduplicationId: m.id,
        })),
      }),
    );
    if (out.Failed?.length) throw new Error(`mail queue refused ${out.Failed.length} messages: ${out.Failed[0].Message}`);
  }
}
