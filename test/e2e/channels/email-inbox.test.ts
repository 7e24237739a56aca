import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overrideEnv } from '../../support/env.ts';
import { imapServer, type ImapServer } from '../../support/imap.ts';
import { expectErrorBody, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { smtpReceiver } from '../../support/smtp.ts';

// An email inbox's configuration as Chatwoot's: the forwarding address on the inbound domain, IMAP and SMTP
// settings checked live on update against real servers on 127.0.0.1 (422 with the server's reason), passwords
// shown to administrators only.

const DOMAIN = 'inbound.test';

describe('email inbox configuration', { timeout: 60_000 }, () => {
  let s: SeededAccount;
  let imap: ImapServer;
  let smtp: Awaited<ReturnType<typeof smtpReceiver>>;
  let restoreEnv: () => void;

  beforeAll(async () => {
    await runtime();
    restoreEnv = overrideEnv({ MAILER_INBOUND_EMAIL_DOMAIN: DOMAIN });
    s = await seedAccount();
    imap = await imapServer();
    smtp = await smtpReceiver();
  });
  afterAll(async () => {
    restoreEnv?.();
    await imap?.close();
    await smtp?.close();
  });

  const createInbox = async () => {
    const res = await s.admin.api.post(`${s.base}/inboxes`, {
      name: 'Mail',
      channel: { type: 'email', email: `${unique('support')}@acme.example` },
    });
    expect(res.status).toBe(200);
    return res.body;
  };

  it('makes a forwarding address of at least 16 random characters on the inbound domain, unique to the inbox', async () => {
    const [a, b] = [await createInbox(), await createInbox()];
    expect(a.forwarding_enabled).toBe(true);
    expect(a.forward_to_email).toMatch(new RegExp(`^[0-9a-f]{32}@${DOMAIN.replace('.', '\\.')}$`));
    expect(b.forward_to_email).not.toBe(a.forward_to_email);
    expect(a.imap_enabled).toBe(false);
    expect(a.smtp_enabled).toBe(false);
    const shown = await s.admin.api.get(`${s.base}/inboxes/${a.id}`);
    expect(shown.body.forward_to_email).toBe(a.forward_to_email);
  });

  it('checks IMAP and SMTP logins on update: working servers are saved, failures are a 422 with the reason and nothing saved', async () => {
    const inbox = await createInbox();
    const path = `${s.base}/inboxes/${inbox.id}`;
    const imapSettings = {
      imap_enabled: true,
      imap_address: imap.host,
      imap_port: imap.port,
      imap_login: imap.user,
      imap_enable_ssl: false,
    };

    const wrong = await s.admin.api.patch(path, { channel: { ...imapSettings, imap_password: 'wrong' } });
    const body = expectErrorBody(wrong, 422);
    expect(typeof wrong.body.message).toBe('string');
    expect(wrong.body.message.length).toBeGreaterThan(0);
    expect(body.errors[0]).toMatchObject({ field: 'channel.imap_enabled', code: 'connection_failed' });
    expect((await s.admin.api.get(path)).body.imap_enabled).toBe(false);

    const good = await s.admin.api.patch(path, { channel: { ...imapSettings, imap_password: imap.password } });
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ imap_enabled: true, imap_address: imap.host, imap_port: imap.port, imap_password: imap.password });

    const closed = await s.admin.api.patch(path, {
      channel: { smtp_enabled: true, smtp_address: '127.0.0.1', smtp_port: 1, smtp_enable_starttls_auto: false },
    });
    expect(expectErrorBody(closed, 422).errors[0]).toMatchObject({ field: 'channel.smtp_enabled', code: 'connection_failed' });
    expect(closed.body.message).toMatch(/ECONNREFUSED|connect/i);

    const smtpOk = await s.admin.api.patch(path, {
      channel: {
        smtp_enabled: true,
        smtp_address: smtp.host,
        smtp_port: smtp.port,
        smtp_enable_starttls_auto: false,
        smtp_password: 'smtp-secret',
      },
    });
    expect(smtpOk.status).toBe(200);
    expect(smtpOk.body).toMatchObject({ smtp_enabled: true, smtp_port: smtp.port, smtp_password: 'smtp-secret' });

    // Agents see the inbox without its servers' credentials.
    await s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: inbox.id, user_ids: [s.agent.id] });
    const asAgent = await s.agent.api.get(path);
    expect(asAgent.status).toBe(200);
    expect(asAgent.body).not.toHaveProperty('imap_password');
    expect(asAgent.body).not.toHaveProperty('smtp_password');
    expect(asAgent.body.forward_to_email).toBe(inbox.forward_to_email);
  });
});
