import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overrideEnv } from '../../support/env.ts';
import { mailFixture } from '../../support/mail-fixtures.ts';
import { runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { smtpReceiver, type ReceivedMail } from '../../support/smtp.ts';
import { until, untilState } from '../../support/until.ts';
import { browser, ok, openWidget, widgetInbox } from '../widget/fixtures.ts';

// Conversation continuity: a web widget visitor who left an email gets the agent's reply by mail (a real SMTP
// server on 127.0.0.1), and their answer to that mail, sent through the local SMTP listener, lands back in the
// widget conversation.

const DOMAIN = 'inbound.test';

describe('conversation continuity by mail', { timeout: 90_000 }, () => {
  let s: SeededAccount;
  let smtp: Awaited<ReturnType<typeof smtpReceiver>>;
  let restoreEnv: () => void;
  let smtpPort: number;

  beforeAll(async () => {
    smtpPort = (await runtime()).inboundSmtpPort;
    smtp = await smtpReceiver();
    restoreEnv = overrideEnv({ MAILER_INBOUND_EMAIL_DOMAIN: DOMAIN, SMTP_ADDRESS: smtp.host, SMTP_PORT: String(smtp.port) });
    s = await seedAccount();
  });
  afterAll(async () => {
    restoreEnv?.();
    await smtp?.close();
  });

  it("mails the agent's reply to the visitor; the visitor's answer by mail continues the widget conversation", async () => {
    const inbox = await widgetInbox(s);
    const api = await browser();
    const v = await openWidget(api, inbox);
    const q = `website_token=${encodeURIComponent(inbox.website_token)}`;
    const h = { 'X-Auth-Token': v.auth_token };
    const email = `${unique('visitor-')}@customer.example`;
    ok(await api.patch(`/api/v1/widget/contact?${q}`, { name: 'Vera Visitor', email }, h), 'contact email');
    const sent = ok(await api.post(`/api/v1/widget/messages?${q}`, { message: { content: 'Is my order late?' } }, h), 'message');
    const displayId = sent.conversation_id as number;
    const conversation = ok(await s.admin.api.get(`${s.base}/conversations/${displayId}`), 'conversation');
    const reply = ok(await s.admin.api.post(`${s.base}/conversations/${displayId}/messages`, { content: 'It ships **today**.' }), 'reply');

    const [mail] = (await untilState(
      async () => smtp.mails.filter((m) => m.envelopeTo.includes(email)),
      (ms) => ms.length >= 1,
    )) as [ReceivedMail];
    expect(mail.headers.subject).toBe(`[#${displayId}] New messages on this conversation`);
    expect(mail.headers['reply-to']).toContain(`<reply+${conversation.uuid}@${DOMAIN}>`);
    expect(mail.headers['message-id']).toBe(`<conversation/${conversation.uuid}/messages/${reply.id}@${DOMAIN}>`);
    expect(mail.headers['in-reply-to']).toBe(`<account/${s.accountId}/conversation/${conversation.uuid}@${DOMAIN}>`);
    expect(mail.html).toContain('<strong>today</strong>');
    // The widget message itself is not a channel send: no source_id, still `sent`.
    const stored = (await s.admin.api.get(`${s.base}/conversations/${displayId}/messages`)).body.payload.find(
      (m: any) => m.id === reply.id,
    );
    expect(stored).toMatchObject({ status: 'sent', source_id: null });

    // The visitor answers the mail: to the Reply-To, replying to its Message-ID.
    const messageId = `${unique('answer')}@customer.example`;
    const answer = mailFixture('plain', {
      to: `reply+${conversation.uuid}@${DOMAIN}`,
      messageId,
      headers: [`In-Reply-To: ${mail.headers['message-id']}`, `Reply-To: ${email}`],
    });
    const t = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
    await t.sendMail({ envelope: { from: email, to: [`reply+${conversation.uuid}@${DOMAIN}`] }, raw: answer });
    t.close();
    const landed = await until(
      async () =>
        (await s.admin.api.get(`${s.base}/conversations/${displayId}/messages`)).body.payload.find((m: any) => m.source_id === messageId),
      { what: 'the mailed answer in the widget conversation' },
    );
    expect(landed).toMatchObject({ message_type: 0, content_type: 'incoming_email', conversation_id: displayId });
    expect(landed.sender).toMatchObject({ id: conversation.meta.sender.id });
    // The visitor sees it in the widget too.
    const widgetMessages = ok(await api.get(`/api/v1/widget/messages?${q}`, h), 'widget messages');
    expect(JSON.stringify(widgetMessages)).toContain('my order #1234 has not arrived');
  });
});
