import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../infra/local/runtime.ts';
import { overrideEnv } from '../../support/env.ts';
import { runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { until } from '../../support/until.ts';

// A mail bomb to one inbox cannot starve another (docs/mail.md#ways-in): one inbox's mail is at most two queue groups
// (lanes by sender), so a flood from many senders queued ahead of another inbox's mail is taken in its lanes while
// that mail is served at once; nothing of the flood is lost.

const RELAY_PASSWORD = 'flood-relay';
const FLOOD = 100;

describe('email: a flood to one inbox', { timeout: 180_000 }, () => {
  let rt: Runtime;
  let s: SeededAccount;
  let restoreEnv: () => void;
  let flooded: { id: number; email: string };
  let quiet: { id: number; email: string };

  beforeAll(async () => {
    rt = await runtime();
    restoreEnv = overrideEnv({ RAILS_INBOUND_EMAIL_PASSWORD: RELAY_PASSWORD });
    s = await seedAccount();
    const inbox = async (name: string) => {
      const res = await s.admin.api.post(`${s.base}/inboxes`, { name, channel: { type: 'email', email: `${unique(name)}@acme.example` } });
      expect(res.status).toBe(200);
      return res.body as { id: number; email: string };
    };
    flooded = await inbox('flooded');
    quiet = await inbox('quiet');
  });
  afterAll(async () => {
    await rt?.pipeline.resume();
    restoreEnv?.();
  });

  const relay = (raw: string) =>
    fetch(`${rt.baseUrl}/rails/action_mailbox/relay/inbound_emails`, {
      method: 'POST',
      headers: {
        'content-type': 'message/rfc822',
        authorization: `Basic ${Buffer.from(`actionmailbox:${RELAY_PASSWORD}`).toString('base64')}`,
      },
      body: raw,
    });
  const mail = (from: string, to: string, subject: string) =>
    [
      `From: ${from}`,
      `To: ${to}`,
      `Subject: ${subject}`,
      `Message-ID: <${unique('flood')}@customer.example>`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      `${subject}.`,
      '',
    ].join('\r\n');
  /** The inbox's conversations by id (pages read while conversations are still being made may overlap). */
  const conversations = async (inboxId: number) => {
    const all = new Map<number, any>();
    for (let page = 1; ; page++) {
      const res = await s.admin.api.get(`${s.base}/conversations?inbox_id=${inboxId}&status=all&page=${page}`);
      const got = (res.body.data.payload ?? []) as any[];
      for (const c of got) all.set(c.id, c);
      if (got.length < 25) return [...all.values()];
    }
  };

  it('the other inbox mail is taken ahead of the flood queued before it, and every flood mail lands', async () => {
    // Everything queued while the consumers are stopped: the flood first, the other inbox's mail last.
    await rt.pipeline.pause();
    try {
      for (let i = 0; i < FLOOD; i++) {
        const res = await relay(mail(`bomber${i}@flood.example`, flooded.email, `Flood ${i}`));
        expect(res.status).toBe(204);
      }
      expect((await relay(mail('customer@calm.example', quiet.email, 'Calm question'))).status).toBe(204);
    } finally {
      await rt.pipeline.resume();
    }
    // Each mail opens its own conversation; display ids are dense per account, in the order the consumer made them.
    const [calm] = await until(async () => ((await conversations(quiet.id)).length ? conversations(quiet.id) : undefined), {
      what: 'the other inbox mail',
      timeoutMs: 60_000,
    });
    const all = await until(
      async () => {
        const got = await conversations(flooded.id);
        return got.length >= FLOOD ? got : undefined;
      },
      { what: 'every flood mail', timeoutMs: 150_000 },
    );
    // Nothing lost, nothing twice.
    expect(all).toHaveLength(FLOOD);
    expect(new Set(all.map((c) => c.meta.sender.email)).size).toBe(FLOOD);
    // Queued last, taken with the flood's first batches (two lanes of 10): one queue group per sender would have
    // served it after every flood mail queued before it.
    const before = all.filter((c) => c.id < calm.id).length;
    expect(before).toBeLessThan(FLOOD / 4);
  });
});
