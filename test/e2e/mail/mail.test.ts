import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overrideEnv } from '../../support/env.ts';
import { runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';
import { smtpReceiver, type ReceivedMail } from '../../support/smtp.ts';
import { fromAddress } from '../sessions/fixtures.ts';
import { browser, ok, openWidget, widgetInbox } from '../widget/fixtures.ts';

// The mail room end to end: a service writes a mail request, the pipeline renders it and the mail function
// sends it over SMTP (SMTP_ADDRESS / SMTP_PORT, as Chatwoot names them) to a real SMTP server on 127.0.0.1.

const PASSWORD = 'Passw0rd!';

describe('mail through SMTP (password reset, conversation transcript)', { timeout: 120_000 }, () => {
  let smtp: Awaited<ReturnType<typeof smtpReceiver>>;
  let baseUrl: string;
  let s: SeededAccount;
  let restoreEnv: () => void;

  beforeAll(async () => {
    baseUrl = (await runtime()).baseUrl;
    smtp = await smtpReceiver();
    restoreEnv = overrideEnv({ SMTP_ADDRESS: smtp.host, SMTP_PORT: String(smtp.port) });
    s = await seedAccount();
  });
  afterAll(async () => {
    restoreEnv?.();
    await smtp?.close();
  });

  const mailTo = (to: string, count = 1) =>
    untilState(
      async () => smtp.mails.filter((m) => m.envelopeTo.includes(to)),
      (ms) => ms.length >= count,
    );

  it("mails devise's reset password instructions; the link's token resets the password", async () => {
    const fresh = await seedAccount();
    const email = (await fresh.agent.api.get('/api/v1/profile')).body.email as string;
    expect((await fromAddress(baseUrl).post('/auth/password', { email: email.toUpperCase() })).status).toBe(200);

    const [mail] = (await mailTo(email)) as [ReceivedMail];
    expect(mail.headers.subject).toBe('Reset password instructions');
    expect(mail.headers.from).toBe('Chatwoot <accounts@chatwoot.com>');
    expect(mail.envelopeFrom).toBe('accounts@chatwoot.com');
    expect(mail.headers.to).toBe(email);
    expect(mail.text).toContain(`Hello ${email}!`);
    // The dashboard's reset page, as Chatwoot's frontend_url('auth/password/edit', reset_password_token:).
    const link = new RegExp(`${baseUrl.replace(/[.]/g, '\\.')}/app/auth/password/edit\\?reset_password_token=([A-Za-z0-9_%-]+)`);
    const fromText = link.exec(mail.text)?.[1];
    const fromHtml = link.exec(mail.html)?.[1];
    expect(fromText).toBeDefined();
    expect(fromHtml).toBe(fromText);
    expect(mail.html).toContain('>Change my password</a>');

    const NEW = 'Mail3d-Passw0rd!';
    const done = await fromAddress(baseUrl).put('/auth/password', {
      reset_password_token: decodeURIComponent(fromText!),
      password: NEW,
      password_confirmation: NEW,
    });
    expect(done.status).toBe(200);
    expect(done.body.data.id).toBe(fresh.agent.id);
    expect((await fromAddress(baseUrl).post('/auth/sign_in', { email, password: NEW })).status).toBe(200);
    expect((await fromAddress(baseUrl).post('/auth/sign_in', { email, password: PASSWORD })).status).toBe(401);
  });

  it("mails the widget conversation's transcript to the contact's email, as Chatwoot's transcript mailer", async () => {
    const inbox = await widgetInbox(s);
    const api = await browser();
    const v = await openWidget(api, inbox);
    const q = `website_token=${encodeURIComponent(inbox.website_token)}`;
    const h = { 'X-Auth-Token': v.auth_token };
    const email = `${unique('visitor-')}@example.com`;
    ok(await api.patch(`/api/v1/widget/contact?${q}`, { name: 'Vera Visitor', email }, h), 'contact email');
    const sent = ok(
      await api.post(`/api/v1/widget/messages?${q}`, { message: { content: 'Hi <b>there</b>,\nmy order is late' } }, h),
      'message',
    );
    const displayId = sent.conversation_id as number;
    const conv = `${s.base}/conversations/${displayId}/messages`;
    ok(await s.admin.api.post(conv, { content: 'Sorry! It ships today.', message_type: 'outgoing' }), 'reply');
    ok(await s.admin.api.post(conv, { content: 'internal: check the warehouse', private: true }), 'note');
    const admin = ok(await s.admin.api.get('/api/v1/profile'), 'profile');

    expect((await api.post(`/api/v1/widget/conversations/transcript?${q}`, undefined, h)).status).toBe(200);
    // The agent's reply was mailed to the visitor too (conversation continuity, test/e2e/channels/email-continuity.test.ts).
    const transcripts = await untilState(
      async () => smtp.mails.filter((m) => m.envelopeTo.includes(email) && m.headers.subject?.endsWith('Conversation Transcript')),
      (ms) => ms.length >= 1,
    );
    const mail = transcripts[0] as ReceivedMail;
    expect(mail.headers.subject).toBe(`[#${displayId}] Conversation Transcript`);
    expect(mail.headers.to).toBe(email);
    // Each chat message: sender in bold, content (escaped, line breaks kept), time; private notes left out.
    expect(mail.html).toContain('<b>Vera Visitor</b>');
    expect(mail.html).toContain('Hi &lt;b&gt;there&lt;/b&gt;,<br>my order is late');
    expect(mail.html).toContain(`<b>${admin.available_name ?? admin.name}</b>`);
    expect(mail.html).toContain('Sorry! It ships today.');
    expect(mail.html).not.toContain('warehouse');
    expect(mail.html.indexOf('my order is late')).toBeLessThan(mail.html.indexOf('ships today'));
    expect(mail.html).toMatch(/[A-Z][a-z]{2} \d{2}, \d{2}:\d{2} (AM|PM) UTC/);
    expect(mail.text).toContain('Vera Visitor\nHi <b>there</b>,\nmy order is late');
    expect(mail.text).not.toContain('warehouse');
  });
});
