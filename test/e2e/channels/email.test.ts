import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { findThreadByUuid } from '#shared/db/repositories/mail-threads.ts';
import { overrideEnv } from '../../support/env.ts';
import { download } from '../../support/files.ts';
import { mailFixture, type MailFixture } from '../../support/mail-fixtures.ts';
import { runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { smtpReceiver, type ReceivedMail } from '../../support/smtp.ts';
import { until, untilState } from '../../support/until.ts';

// Mail in and out end to end: real RFC 822 mails through the local SMTP listener and the ActionMailbox relay
// route land in their inbox and conversation as Chatwoot's mailboxes put them; an agent's reply reaches a real
// SMTP server on 127.0.0.1 with Chatwoot's headers; the customer's answer to it threads back.

const DOMAIN = 'inbound.test';
const RELAY_PASSWORD = 'relay-secret';

describe('email inboxes: mail in, threads, replies out', { timeout: 120_000 }, () => {
  let s: SeededAccount;
  let smtp: Awaited<ReturnType<typeof smtpReceiver>>;
  let restoreEnv: () => void;
  let baseUrl: string;
  let smtpPort: number;
  let inbox: { id: number; email: string; forward_to_email: string };
  let hooks: Receiver;

  beforeAll(async () => {
    const rt = await runtime();
    baseUrl = rt.baseUrl;
    smtpPort = rt.inboundSmtpPort;
    smtp = await smtpReceiver({
      refuse: (to) =>
        to.startsWith('refused') ? { code: 550, message: '5.1.1 <refused>: Recipient address rejected: User unknown' } : undefined,
    });
    restoreEnv = overrideEnv({
      MAILER_INBOUND_EMAIL_DOMAIN: DOMAIN,
      RAILS_INBOUND_EMAIL_PASSWORD: RELAY_PASSWORD,
      SMTP_ADDRESS: smtp.host,
      SMTP_PORT: String(smtp.port),
    });
    s = await seedAccount();
    const res = await s.admin.api.post(`${s.base}/inboxes`, {
      name: 'Support',
      channel: { type: 'email', email: `${unique('support')}@acme.example` },
    });
    expect(res.status).toBe(200);
    inbox = res.body;
    hooks = await startReceiver();
    const hook = await s.admin.api.post(`${s.base}/webhooks`, {
      url: hooks.url,
      subscriptions: ['conversation_created', 'message_created'],
    });
    expect(hook.status).toBe(200);
  });
  afterAll(async () => {
    restoreEnv?.();
    await smtp?.close();
    await hooks?.close();
  });

  const viaSmtp = async (raw: Buffer, to = [inbox.forward_to_email]) => {
    const t = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
    await t.sendMail({ envelope: { from: 'sender@customer.example', to }, raw });
    t.close();
  };
  const viaRelay = (raw: Buffer, password = RELAY_PASSWORD, contentType = 'message/rfc822') =>
    fetch(`${baseUrl}/rails/action_mailbox/relay/inbound_emails`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Basic ${Buffer.from(`actionmailbox:${password}`).toString('base64')}` },
      body: raw,
    });
  const fixture = (name: MailFixture, headers?: string[], to = inbox.forward_to_email) => {
    const messageId = `${unique(name)}@customer.example`;
    return { messageId, raw: mailFixture(name, { to, messageId, headers }) };
  };

  const conversations = async () =>
    ((await s.admin.api.get(`${s.base}/conversations?inbox_id=${inbox.id}&status=all`)).body.data.payload ?? []) as any[];
  const messagesOf = async (displayId: number) =>
    (await s.admin.api.get(`${s.base}/conversations/${displayId}/messages`)).body.payload as any[];
  /** The conversation holding the incoming mail with this Message-ID, once it is there. */
  const landed = (messageId: string) =>
    until(
      async () => {
        for (const c of await conversations()) {
          const m = (await messagesOf(c.id)).find((x) => x.source_id === messageId);
          if (m) return { conversation: c, message: m };
        }
        return undefined;
      },
      { what: `the mail ${messageId}` },
    );

  it('a plain mail through the SMTP listener: a new conversation with the sender as contact and content_attributes.email', async () => {
    const { messageId, raw } = fixture('plain');
    await viaSmtp(raw);
    const { conversation, message } = await landed(messageId);
    expect(message).toMatchObject({ message_type: 0, content_type: 'incoming_email', source_id: messageId });
    expect(message.content).toContain('my order #1234 has not arrived. Café money spent!');
    expect(message.content_attributes.email).toMatchObject({
      message_id: messageId,
      subject: 'Where is my order?',
      from: ['alice@customer.example'],
      to: [inbox.forward_to_email],
      auto_reply: false,
      multipart: false,
      text_content: { quoted: 'Hello, my order #1234 has not arrived. Café money spent!' },
    });
    expect(message.sender).toMatchObject({ email: 'alice@customer.example', name: 'Alice Example' });
    expect(conversation.additional_attributes).toMatchObject({ source: 'email', mail_subject: 'Where is my order?', auto_reply: false });
    // Events as for any incoming message: the account webhook hears the new conversation and its first message.
    await until(() => hooks.received.some((r) => r.json.event === 'conversation_created' && r.json.id === conversation.id), {
      what: 'the conversation_created delivery',
    });
    await until(() => hooks.received.some((r) => r.json.event === 'message_created' && r.json.id === message.id), {
      what: 'the message_created delivery',
    });
  });

  it('the relay route: basic auth, raw RFC 822; HTML with an inline image embedded, attachments served by data_url', async () => {
    const html = fixture('html-inline');
    expect((await viaRelay(html.raw, 'wrong')).status).toBe(401);
    expect((await viaRelay(html.raw, RELAY_PASSWORD, 'application/json')).status).toBe(415);
    expect((await viaRelay(html.raw)).status).toBe(204);
    const { message } = await landed(html.messageId);
    const full = message.content_attributes.email.html_content.full as string;
    expect(full).not.toContain('cid:');
    const src = /<img src="([^"]+)"/.exec(full)?.[1];
    expect(src).toBeDefined();
    expect((await download(src!)).subarray(1, 4).toString()).toBe('PNG');
    expect(full).not.toMatch(/<script|onclick/);
    expect(message.attachments ?? []).toHaveLength(0);

    const files = fixture('attachments');
    expect((await viaRelay(files.raw)).status).toBe(204);
    const withFiles = (await landed(files.messageId)).message;
    expect(withFiles.content_attributes.email.number_of_attachments).toBe(2);
    expect(withFiles.content_attributes.cc_email).toEqual(['dave@customer.example']);
    const attachments = withFiles.attachments as any[];
    expect(attachments.map((a) => [a.file_type, a.extension, a.file_size])).toEqual([
      ['file', 'pdf', 54],
      ['file', 'csv', 13],
    ]);
    const pdf = attachments[0];
    expect((await download(pdf.data_url)).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('a forwarded mail to the inbox address, the same mail twice, an auto-reply, and a bounce', async () => {
    const fwd = fixture('forwarded', [], inbox.email);
    // Forwarded by the customer's own server: the envelope names the forwarding address, the header their support address.
    await viaSmtp(fwd.raw.toString().replaceAll('support@acme.example', inbox.email) as unknown as Buffer);
    const forwarded = await landed(fwd.messageId);
    expect(forwarded.message.sender.email).toBe('erin@customer.example');
    expect(forwarded.message.content_attributes.email.headers['x-original-sender']).toBe('erin@customer.example');

    const twice = fixture('plain');
    await viaSmtp(twice.raw);
    expect((await viaRelay(twice.raw)).status).toBe(204);
    const first = await landed(twice.messageId);
    // The second copy goes through the same pipeline: wait for a later mail of the same sender, then count.
    const after = fixture('plain');
    await viaSmtp(after.raw);
    await landed(after.messageId);
    const all = await Promise.all(
      (await conversations()).map(async (c) => (await messagesOf(c.id)).filter((m) => m.source_id === twice.messageId)),
    );
    expect(all.flat()).toHaveLength(1);
    expect(first.message.source_id).toBe(twice.messageId);

    const bounce = fixture('bounce');
    await viaSmtp(bounce.raw);
    const auto = fixture('auto-reply');
    await viaSmtp(auto.raw);
    const { conversation, message } = await landed(auto.messageId);
    expect(message.content_attributes.email.auto_reply).toBe(true);
    expect(conversation.additional_attributes.auto_reply).toBe(true);
    // No greeting or automation answered it: the conversation holds only the mail.
    expect((await messagesOf(conversation.id)).map((m) => m.message_type)).toEqual([0]);
    expect((await conversations()).some((c) => c.additional_attributes?.mail_subject === 'Undelivered Mail Returned to Sender')).toBe(
      false,
    );
  });

  it("an agent's reply is mailed with Chatwoot's headers; answers by In-Reply-To, References and reply+uuid thread back", async () => {
    const { messageId, raw } = fixture('plain');
    await viaSmtp(raw);
    const { conversation } = await landed(messageId);
    const reply = await s.admin.api.post(`${s.base}/conversations/${conversation.id}/messages`, { content: 'We are on it **today**.' });
    expect(reply.status).toBe(200);
    const [mail] = (await untilState(
      async () =>
        smtp.mails.filter((m) => m.envelopeTo.includes('alice@customer.example') && m.headers.subject === 'Re: Where is my order?'),
      (ms) => ms.length >= 1,
    )) as [ReceivedMail];
    const uuid = conversation.uuid;
    expect(mail.headers['reply-to']).toContain(`reply+${uuid}@${DOMAIN}`);
    expect(mail.headers.from).toMatch(/from Support" <accounts@chatwoot\.com>$/);
    expect(mail.headers['message-id']).toBe(`<conversation/${uuid}/messages/${reply.body.id}@${DOMAIN}>`);
    expect(mail.headers['in-reply-to']).toBe(`<${messageId}>`);
    expect(mail.headers.references).toContain(`<${messageId}>`);
    // Chatwoot's email_reply layout: the rendered Markdown alone in the HTML part, the message as written in the text
    // part, no header or footer around them.
    expect(mail.html.trim()).toBe('<p>We are on it <strong>today</strong>.</p>');
    expect(mail.text.trim()).toBe('We are on it **today**.');
    const sent = await until(async () => (await messagesOf(conversation.id)).find((m) => m.id === reply.body.id && m.source_id));
    expect(sent.source_id).toBe(`conversation/${uuid}/messages/${reply.body.id}@${DOMAIN}`);

    const answers = [
      fixture('plain', [`In-Reply-To: ${mail.headers['message-id']}`], 'someone-else@elsewhere.example'),
      fixture('plain', [`References: <unknown@x.example> ${mail.headers['message-id']}`], inbox.forward_to_email),
      fixture('plain', [], `reply+${uuid}@${DOMAIN}`),
    ];
    await viaRelay(answers[0].raw);
    await viaSmtp(answers[1].raw);
    await viaSmtp(answers[2].raw, [`reply+${uuid}@${DOMAIN}`]);
    for (const a of answers) expect((await landed(a.messageId)).conversation.id).toBe(conversation.id);
  });

  it('a reply whose thread record fails is mailed once: the record is written before the mail goes out, and retried', async () => {
    const { messageId, raw } = fixture('plain', ['Reply-To: once@customer.example']);
    await viaSmtp(raw);
    const { conversation } = await landed(messageId);
    // The table refuses the first write of this conversation's thread record (a throttle, an outage).
    const thread = keys.mailThread(s.accountId, conversation.id);
    const name = unique('thread-fails-');
    let refused = 0;
    db().middlewareStack.add(
      (next) => async (args) => {
        const item = (args.input as { Item?: Record<string, { S?: string }> }).Item;
        if (item?.pk?.S === thread.pk && item.sk?.S === thread.sk && refused++ === 0) throw new Error('ProvisionedThroughputExceeded');
        return next(args);
      },
      { step: 'build', name },
    );
    try {
      const reply = await s.admin.api.post(`${s.base}/conversations/${conversation.id}/messages`, { content: 'Once only' });
      expect(reply.status).toBe(200);
      const sent = await untilState(
        async () => (await messagesOf(conversation.id)).find((m) => m.id === reply.body.id),
        (m) => !!m?.source_id,
        30_000,
      );
      expect(sent.status).toBe('sent');
      expect(refused).toBeGreaterThanOrEqual(2);
      expect(smtp.mails.filter((m) => m.envelopeTo.includes('once@customer.example') && m.text.includes('Once only'))).toHaveLength(1);
      expect(await findThreadByUuid(conversation.uuid)).toMatchObject({ conversation_id: conversation.id });
    } finally {
      db().middlewareStack.remove(name);
    }
  });

  it('an SMTP refusal fails the message with the server text', async () => {
    const { messageId, raw } = fixture('plain', ['Reply-To: refused@customer.example']);
    await viaSmtp(raw);
    const { conversation } = await landed(messageId);
    const reply = await s.admin.api.post(`${s.base}/conversations/${conversation.id}/messages`, { content: 'Hello?' });
    const failed = await until(async () =>
      (await messagesOf(conversation.id)).find((m) => m.id === reply.body.id && m.status === 'failed'),
    );
    expect(failed.content_attributes.external_error).toContain('Recipient address rejected: User unknown');
    expect(failed.source_id).toBeNull();
  });
});
