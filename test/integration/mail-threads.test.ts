import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { overrideEnv } from '../support/env.ts';
import { findInboxByChannelAddress } from '#shared/db/repositories/inboxes.ts';
import {
  findReference,
  findThreadByUuid,
  getImapState,
  putReference,
  putThread,
  saveImapProgress,
  takeImapLease,
} from '#shared/db/repositories/mail-threads.ts';
import { routeMail } from '#shared/channels/email/ingest.ts';
import { mailFixture } from '../support/mail-fixtures.ts';
import { runtime, seedAccount, unique, type SeededAccount } from '../support/runtime.ts';
import { until } from '../support/until.ts';

// The email channel's lookups against DynamoDB Local: thread items by uuid and Message-ID (gsi1), the per-
// conversation dedup of a Message-ID, the IMAP lease, and routing a raw mail to its inbox on its headers.

describe('mail threads and routing', () => {
  let s: SeededAccount;
  let restore: () => void;
  beforeAll(async () => {
    await runtime();
    restore = overrideEnv({ MAILER_INBOUND_EMAIL_DOMAIN: 'inbound.test' });
    s = await seedAccount();
    return () => restore();
  });

  it('finds a conversation by uuid and by a Message-ID of its inbox only; an In-Reply-To is recorded once per conversation', async () => {
    const uuid = randomUUID();
    const target = { account_id: s.accountId, conversation_id: 7, inbox_id: 70 };
    await putThread(uuid, target);
    expect(await until(() => findThreadByUuid(uuid.toUpperCase()))).toMatchObject(target);
    const id = `<${unique('m')}@customer.example>`;
    expect(await putReference(id, target)).toBe(true);
    expect(await putReference(id.slice(1, -1), target)).toBe(false);
    expect(await until(() => findReference(70, id))).toMatchObject(target);
    expect(await findReference(71, id)).toBeUndefined();
  });

  it('leases an IMAP inbox to one poll at a time and keeps its progress', async () => {
    const inboxId = Number(Date.now() % 1e9);
    expect(await takeImapLease(s.accountId, inboxId, 60_000)).toBe(true);
    expect(await takeImapLease(s.accountId, inboxId, 60_000)).toBe(false);
    await saveImapProgress(s.accountId, inboxId, '42', 9);
    expect(await getImapState(s.accountId, inboxId)).toMatchObject({ uid_validity: '42', last_uid: 9 });
    expect(await takeImapLease(s.accountId, inboxId, 60_000)).toBe(true);
  });

  it('routes a mail by its receivers (address, forwarding address with a +tag, envelope) and drops one for nobody', async () => {
    const address = `${unique('support')}@acme.example`;
    const res = await s.admin.api.post(`${s.base}/inboxes`, { name: 'Mail', channel: { type: 'email', email: address } });
    expect(res.status).toBe(200);
    const { id, forward_to_email } = res.body;
    expect((await findInboxByChannelAddress(address.toUpperCase()))?.id).toBe(id);
    const mail = (to: string) => mailFixture('plain', { to, messageId: `${unique('r')}@customer.example` });
    expect((await routeMail(mail(address)))?.inbox.id).toBe(id);
    expect((await routeMail(mail(forward_to_email.replace('@', '+tag@'))))?.inbox.id).toBe(id);
    const viaEnvelope = await routeMail(mail('nobody@elsewhere.example'), [forward_to_email]);
    expect(viaEnvelope).toMatchObject({ inbox: { id }, sender: 'alice@customer.example' });
    expect(await routeMail(mail('nobody@elsewhere.example'))).toBeUndefined();
  });
});
