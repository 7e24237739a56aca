import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { config } from '#shared/config.ts';
import { decodeQueueBody } from '#shared/codec/queue-text.ts';
import { log } from '#shared/log.ts';
import { openMail } from './sealed.ts';
import type { Mail, QueuedMail } from '#shared/model/mail.ts';

// The mail function: mail queue → recipients. Deployed through Amazon SES (SESv2 SendEmail, from
// MAILER_SENDER_EMAIL); locally through SMTP when SMTP_ADDRESS and SMTP_PORT are set (nodemailer), else
// written as .eml files to MAIL_DIR (`npm start` with DATA_DIR: <DATA_DIR>/mail), else only logged.

/** `Name <address>` or `address` → the address (SES's identity, the envelope sender). */
export function senderAddress(sender: string): string {
  const m = /<([^<>]+)>\s*$/.exec(sender);
  return (m ? m[1] : sender).trim();
}

let ses: SESv2Client | undefined;

async function viaSes(mail: Mail) {
  ses ??= new SESv2Client({ region: config().region });
  await ses.send(
    new SendEmailCommand({
      FromEmailAddress: config().mailerSenderEmail,
      Destination: { ToAddresses: [mail.to] },
      Content: {
        Simple: {
          Subject: { Data: mail.subject, Charset: 'UTF-8' },
          Body: { Html: { Data: mail.html, Charset: 'UTF-8' }, Text: { Data: mail.text, Charset: 'UTF-8' } },
        },
      },
    }),
  );
}

type Transporter = { sendMail(m: object): Promise<unknown> };
const transporters = new Map<string, Transporter>();

async function viaSmtp(mail: Mail, smtp: NonNullable<ReturnType<typeof config>['smtp']>) {
  const key = `${smtp.host}:${smtp.port}:${smtp.user ?? ''}`;
  let t = transporters.get(key);
  if (!t) {
    const nodemailer = await import('nodemailer');
    t = nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.port === 465,
      ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.pass ?? '' } } : {}),
    }) as Transporter;
    transporters.set(key, t);
  }
  await t.sendMail({
    from: config().mailerSenderEmail,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    messageId: `<${mail.id}@mail.local>`,
  });
}

async function toFolder(mail: Mail, dir: string) {
  await mkdir(dir, { recursive: true });
  const boundary = `b-${mail.id}`;
  const eml = [
    `From: ${config().mailerSenderEmail}`,
    `To: ${mail.to}`,
    `Subject: ${mail.subject}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    mail.text,
    `--${boundary}`,
    'Content-Type: text/html; charset=utf-8',
    '',
    mail.html,
    `--${boundary}--`,
    '',
  ].join('\r\n');
  await writeFile(join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${mail.kind}-${mail.id}.eml`), eml);
}

export async function sendMail(mail: Mail): Promise<void> {
  const c = config();
  if (c.mailTransport === 'ses') return viaSes(mail);
  if (c.mailTransport === 'none') {
    log.warn('mail dropped: no sender configured (mailerSenderEmail)', { mailId: mail.id, kind: mail.kind });
    return;
  }
  if (c.smtp) return viaSmtp(mail, c.smtp);
  if (c.mailDir) return toFolder(mail, c.mailDir);
  // No way to send: the mail is logged whole (locally only), so a developer can follow the reset link.
  log.info('mail (no SMTP_ADDRESS or MAIL_DIR set: logged, not sent)', {
    kind: mail.kind,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
  });
}

/** One batch of the mail queue; a mail that could not be sent returns to the queue (then its DLQ). */
export async function sendMails(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: { itemIdentifier: string }[] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      const mail = decodeQueueBody<QueuedMail>(record.body);
      try {
        await sendMail(await openMail(mail));
        log.info('mail sent', { mailId: mail.id, kind: mail.kind });
      } catch (error) {
        log.error('mail not sent', { mailId: mail.id, kind: mail.kind, error });
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
}
