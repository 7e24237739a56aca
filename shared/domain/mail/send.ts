import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { decodeQueueBody } from '#shared/codec/queue-text.ts';
import { log } from '#shared/log.ts';
import type { QueuedMail } from '#shared/model/mail.ts';
import { sendHeaderedMail, sendMail } from '#shared/outbound/mail.ts';
import { openMail } from './sealed.ts';

// The mail function: mail queue → recipients, through the transports of shared/outbound/mail.ts.

/** One batch of the mail queue; a mail that could not be sent returns to the queue (then its DLQ). */
export async function sendMails(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: { itemIdentifier: string }[] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      const mail = decodeQueueBody<QueuedMail>(record.body);
      try {
        if (mail.kind === 'conversation_reply') await sendHeaderedMail({ ...mail, attachments: [] });
        else await sendMail(await openMail(mail));
        log.info('mail sent', { mailId: mail.id, kind: mail.kind });
      } catch (error) {
        log.error('mail not sent', { mailId: mail.id, kind: mail.kind, error });
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
}
