import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overrideEnv } from '../../support/env.ts';
import { imapServer, type ImapServer } from '../../support/imap.ts';
import { mailFixture } from '../../support/mail-fixtures.ts';
import { runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { until } from '../../support/until.ts';

// IMAP polling against a real IMAP server on 127.0.0.1: mails put in its INBOX are imported once, however many
// polls run, and a reply's Reply-To is the inbox's own address.

describe('IMAP polling', { timeout: 90_000 }, () => {
  let s: SeededAccount;
  let imap: ImapServer;
  let restoreEnv: () => void;
  let poll: () => Promise<unknown>;

  beforeAll(async () => {
    const rt = await runtime();
    poll = rt.pollImap;
    restoreEnv = overrideEnv({ MAILER_INBOUND_EMAIL_DOMAIN: 'inbound.test' });
    s = await seedAccount();
    imap = await imapServer();
  });
  afterAll(async () => {
    restoreEnv?.();
    await imap?.close();
  });

  it('imports each mail once across several polls, and only new ones', async () => {
    const address = `${unique('support')}@acme.example`;
    const created = ok(await s.admin.api.post(`${s.base}/inboxes`, { name: 'IMAP', channel: { type: 'email', email: address } }));
    const update = await s.admin.api.patch(`${s.base}/inboxes/${created.id}`, {
      channel: {
        imap_enabled: true,
        imap_address: imap.host,
        imap_port: imap.port,
        imap_login: imap.user,
        imap_password: imap.password,
        imap_enable_ssl: false,
      },
    });
    expect(update.status).toBe(200);

    const ids = [unique('imap1'), unique('imap2'), unique('imap3')].map((x) => `${x}@customer.example`);
    imap.deliver(mailFixture('plain', { to: address, messageId: ids[0] }));
    imap.deliver(mailFixture('attachments', { to: address, messageId: ids[1] }));
    const messages = async () => {
      const convs = (await s.admin.api.get(`${s.base}/conversations?inbox_id=${created.id}&status=all`)).body.data.payload as any[];
      const all = await Promise.all(
        convs.map(async (c) => (await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`)).body.payload as any[]),
      );
      return all.flat().filter((m) => m.message_type === 0);
    };
    await poll();
    await poll();
    await until(async () => (await messages()).length >= 2 && true, { what: 'two imported mails' });
    imap.deliver(mailFixture('plain', { to: address, messageId: ids[2] }));
    await poll();
    await poll();
    await until(async () => (await messages()).length >= 3 && true, { what: 'the third mail' });
    await poll();
    // A mail the queue still held would show by now: the pipeline ran the polls' mails above.
    const sources = (await messages()).map((m) => m.source_id).sort();
    expect(sources).toEqual([...ids].sort());
  });
});

function ok(res: { status: number; body: any; text: string }) {
  if (res.status !== 200) throw new Error(`${res.status}: ${res.text}`);
  return res.body;
}
