import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { type MailConfig, config, mailConfig } from '#shared/config.ts';
import { log } from '#shared/log.ts';
import type { Mail, ThreadedMail } from '#shared/model/mail.ts';

// Mail's transports: deployed Amazon SES (SESv2 SendEmail, from MAILER_SENDER_EMAIL); locally SMTP when SMTP_ADDRESS
// and SMTP_PORT are set (nodemailer), else .eml files in MAIL_DIR (`npm start` with DATA_DIR: <DATA_DIR>/mail), else
// only the log; an email inbox's reply through the inbox's own SMTP server when it has one (./mail-servers.ts). The
// mail function (shared/domain/mail/send.ts) and the email room's sends (shared/channels/email/send.ts) call them.

/** `Name <address>` or `address` → the address (SES's identity, the envelope sender). */
export function senderAddress(sender: string): string {
  const m = /<([^<>]+)>\s*$/.exec(sender);
  return (m ? m[1] : sender).trim();
}

// SES, nodemailer and its composer are loaded on first use (dynamic imports): the channel functions that reach this
// module through the email room's reply path carry them only when they send mail.
const sesv2 = () => import('@aws-sdk/client-sesv2');
let ses: SESv2Client | undefined;
const sesClient = async (region: string) => (ses ??= new (await sesv2()).SESv2Client({ region }));

async function viaSes(mail: Mail) {
  const { SendEmailCommand } = await sesv2();
  await (await sesClient(config().region)).send(
    new SendEmailCommand({
      FromEmailAddress: mailConfig().mailerSenderEmail,
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

async function smtpTransporter(smtp: NonNullable<MailConfig['smtp']>): Promise<Transporter> {
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
  return t;
}

async function viaSmtp(mail: Mail, smtp: NonNullable<MailConfig['smtp']>) {
  const t = await smtpTransporter(smtp);
  await t.sendMail({
    from: mailConfig().mailerSenderEmail,
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
    `From: ${mailConfig().mailerSenderEmail}`,
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
  const c = mailConfig();
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

// ── conversation mail (the email channel's replies): full headers and attachments ──

/** A mail with its own headers (an agent's reply): built by shared/domain/mail/reply.ts. */
export interface HeaderedMail extends ThreadedMail {
  attachments: { filename: string; contentType: string; content: Buffer }[];
}

/** A transport of the inbox's own (its SMTP server): what `sendMail` of nodemailer offers. */
export type MailTransport = { sendMail(m: object): Promise<unknown> };

const composerOptions = (m: HeaderedMail) => ({
  from: m.from,
  replyTo: m.replyTo,
  to: m.to,
  cc: m.cc.length ? m.cc : undefined,
  bcc: m.bcc.length ? m.bcc : undefined,
  subject: m.subject,
  messageId: m.messageId,
  inReplyTo: m.inReplyTo,
  references: m.references,
  text: m.text,
  html: m.html,
  attachments: m.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
});

/** The mail as RFC 822 bytes (nodemailer's composer; Bcc left out of the headers). */
export async function composeRaw(m: HeaderedMail): Promise<Buffer> {
  const { default: MailComposer } = await import('nodemailer/lib/mail-composer/index.js');
  return new MailComposer(composerOptions(m)).compile().build();
}

/**
 * SES replaces the Message-ID it is given with `<its id>@<region's host>` (AWS: "Amazon SES header fields");
 * the mail is known by that one, so threads through In-Reply-To still hold.
 */
export const sesMessageId = (id: string, region: string) => `${id}@${region === 'us-east-1' ? 'email' : region}.amazonses.com`;

/**
 * Sends a conversation mail: through `via` (the inbox's SMTP) when given; deployed through SES (raw, so headers
 * and attachments stay as built); locally through SMTP_ADDRESS, else into MAIL_DIR, else the log. Answers the
 * Message-ID the mail went out with (without brackets). A refusal throws as the transport threw it.
 */
export async function sendHeaderedMail(m: HeaderedMail, via?: MailTransport): Promise<string> {
  const ownId = m.messageId.replace(/^<|>$/g, '');
  const recipients = [...m.to, ...m.cc, ...m.bcc];
  if (via) {
    await via.sendMail(composerOptions(m));
    return ownId;
  }
  const c = mailConfig();
  if (c.mailTransport === 'ses') {
    const { SendEmailCommand } = await sesv2();
    const { region } = config();
    const out = await (await sesClient(region)).send(
      new SendEmailCommand({
        FromEmailAddress: senderAddress(m.from),
        Destination: { ToAddresses: m.to, CcAddresses: m.cc, BccAddresses: m.bcc },
        Content: { Raw: { Data: await composeRaw(m) } },
      }),
    );
    return out.MessageId ? sesMessageId(out.MessageId, region) : ownId;
  }
  if (c.mailTransport === 'none') throw new Error('No mail transport is configured (mailerSenderEmail)');
  if (c.smtp) {
    await (await smtpTransporter(c.smtp)).sendMail({ ...composerOptions(m), envelope: { from: senderAddress(m.from), to: recipients } });
    return ownId;
  }
  if (c.mailDir) {
    await mkdir(c.mailDir, { recursive: true });
    await writeFile(
      join(c.mailDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-reply-${ownId.replace(/[^\w.-]/g, '_')}.eml`),
      await composeRaw(m),
    );
    return ownId;
  }
  log.info('mail (no SMTP_ADDRESS or MAIL_DIR set: logged, not sent)', { to: recipients, subject: m.subject, text: m.text });
  return ownId;
}
