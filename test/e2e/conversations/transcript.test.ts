import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THROTTLES } from '#shared/domain/throttles.ts';
import { overrideEnv } from '../../support/env.ts';
import { expectErrorBody, fieldsOf, seedAccount, unique } from '../../support/runtime.ts';
import { smtpReceiver } from '../../support/smtp.ts';
import { untilState } from '../../support/until.ts';
import { newConversation, newInbox, ok, world, type World } from './fixtures.ts';

// POST conversations/{id}/transcript {email} (Chatwoot's ConversationsController#transcript, the n8n node's call):
// the transcript mailed to the address given, through the pipeline's mail path, with the widget's limits.

/** Waits, if needed, so that the next seconds stay inside one hour window. */
async function awayFromWindowEdge(marginSeconds = 20) {
  const left = 3600 - (Math.floor(Date.now() / 1000) % 3600);
  if (left < marginSeconds) await new Promise((r) => setTimeout(r, (left + 1) * 1000));
}

describe('conversation transcript to an address', { timeout: 120_000 }, () => {
  let smtp: Awaited<ReturnType<typeof smtpReceiver>>;
  let restoreEnv: () => void;
  let w: World;

  beforeAll(async () => {
    w = await world();
    smtp = await smtpReceiver();
    restoreEnv = overrideEnv({ SMTP_ADDRESS: smtp.host, SMTP_PORT: String(smtp.port) });
    await awayFromWindowEdge();
  });
  afterAll(async () => {
    restoreEnv?.();
    await smtp?.close();
  });

  const conversation = async () => {
    const c = await newConversation(w.s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
    ok(
      await w.s.admin.api.post(`${w.s.base}/conversations/${c.id}/messages`, { content: 'Where is my parcel?', message_type: 'incoming' }),
      'in',
    );
    ok(await w.s.admin.api.post(`${w.s.base}/conversations/${c.id}/messages`, { content: 'On its way!' }), 'out');
    ok(await w.s.admin.api.post(`${w.s.base}/conversations/${c.id}/messages`, { content: 'secret note', private: true }), 'note');
    return c.id as number;
  };

  it('mails the public messages to the address given, for an agent of the inbox', async () => {
    const id = await conversation();
    const to = `${unique('manager-')}@example.com`;
    const res = await w.s.agent.api.post(`${w.s.base}/conversations/${id}/transcript`, { email: to.toUpperCase() });
    expect(res.status).toBe(200);
    const [mail] = await untilState(
      async () => smtp.mails.filter((m) => m.envelopeTo.includes(to)),
      (ms) => ms.length >= 1,
    );
    expect(mail!.headers.to).toBe(to);
    expect(mail!.headers.subject).toContain(`#${id}`);
    expect(mail!.text).toContain('Where is my parcel?');
    expect(mail!.text).toContain('On its way!');
    expect(mail!.text).not.toContain('secret note');
  });

  it('422 without a valid email; 404 for a conversation the agent may not see or another account’s', async () => {
    const id = await conversation();
    expect(fieldsOf(expectErrorBody(await w.s.agent.api.post(`${w.s.base}/conversations/${id}/transcript`, {}), 422))).toHaveProperty(
      'email',
    );
    expectErrorBody(await w.s.agent.api.post(`${w.s.base}/conversations/${id}/transcript`, { email: 'nobody' }), 422);
    const hidden = await newInbox(w.s);
    const c = await newConversation(w.s, { inbox_id: hidden.id, contact_id: w.contact.id });
    expectErrorBody(await w.s.agent.api.post(`${w.s.base}/conversations/${c.id}/transcript`, { email: 'a@example.com' }), 404);
    const other = await seedAccount();
    expectErrorBody(await other.admin.api.post(`${other.base}/conversations/${id}/transcript`, { email: 'a@example.com' }), 404);
  });

  it('per conversation: the 4th within the hour is 429 and mails nothing', async () => {
    const id = await conversation();
    const to = `${unique('many-')}@example.com`;
    const other = `${unique('more-')}@example.com`;
    for (let i = 0; i < THROTTLES.transcriptConversation.max; i++) {
      expect((await w.s.admin.api.post(`${w.s.base}/conversations/${id}/transcript`, { email: i ? other : to })).status).toBe(200);
    }
    const refused = await w.s.admin.api.post(`${w.s.base}/conversations/${id}/transcript`, { email: `${unique('x-')}@example.com` });
    expect(expectErrorBody(refused, 429).errors[0]!.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The three taken ones were mailed, the refused one not.
    const sent = await untilState(
      async () => smtp.mails.filter((m) => m.envelopeTo.includes(to) || m.envelopeTo.includes(other)),
      (ms) => ms.length >= THROTTLES.transcriptConversation.max,
    );
    expect(sent).toHaveLength(THROTTLES.transcriptConversation.max);
  });
});
