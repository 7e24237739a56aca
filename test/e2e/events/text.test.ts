import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { anonymous, apiInbox, conversationPath, inboxPath, publicContact, publicConversation, type ApiInbox } from '../public/fixtures.ts';
import { until } from '../../support/until.ts';

// Whatever text the API accepts reaches every receiver, and one message's text never costs another
// message its event: emoji, other astral characters and U+FFFE/U+FFFF are escaped for the queues; NUL
// and unpaired surrogates are refused with 422 before anything is stored.

const ACCEPTED = [
  'thanks 👍',
  'family 👩‍👩‍👧 flag 🇺🇳 skin 👋🏽',
  'music 𝄞, CJK ext B 𠀀, tag \u{e0001}, last \u{10ffff}',
  'noncharacters \ufffe and \uffff',
  'rtl \u200fשלום\u200e and override \u202eabc\u202c',
  'controls \u0001\u001f\u007f and BOM \ufeff',
];
const REFUSED = ['nul \u0000 inside', 'lone high \ud83d here', 'lone low \udc4d here'];

interface Setup {
  s: SeededAccount;
  hook: Receiver;
  inbox: ApiInbox;
  convs: number[];
  sourceId: string;
  publicConvs: number[];
}

async function setup(): Promise<Setup> {
  const s = await seedAccount();
  const hook = await startReceiver();
  const w = await s.admin.api.post(`${s.base}/webhooks`, { url: hook.url, subscriptions: ['message_created', 'contact_created'] });
  expect(w.status).toBe(200);
  const inbox = await apiInbox(s);
  const c = await s.admin.api.post(`${s.base}/contacts`, { name: 'Ada', email: `${unique('ada')}@example.com` });
  const convs: number[] = [];
  // Several conversations each, so simultaneous writes do not all queue on one conversation.
  for (let i = 0; i < 4; i++) {
    const conv = await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inbox.id, contact_id: c.body.payload.contact.id });
    expect(conv.status).toBe(200);
    convs.push(conv.body.id);
  }
  const api = await anonymous();
  const contact = await publicContact(api, inbox);
  const publicConvs: number[] = [];
  for (let i = 0; i < 4; i++) publicConvs.push((await publicConversation(api, inbox, contact.source_id)).id);
  return { s, hook, inbox, convs, sourceId: contact.source_id, publicConvs };
}

const created = (h: Receiver) => h.received.filter((r) => r.json?.event === 'message_created');

// How long a wait of this file lasts before it fails.
const WAIT = { timeoutMs: 60_000 };

describe('any accepted text reaches its webhook; forbidden text is refused', () => {
  let a: Setup;
  let b: Setup;

  beforeAll(async () => {
    await runtime();
    [a, b] = await Promise.all([setup(), setup()]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([a?.hook.close(), b?.hook.close()]);
  });

  it('delivers every acknowledged message exactly once, across two accounts, all sent at the same moment', async () => {
    const api = await anonymous();
    type Sent = { who: Setup; content: string; via: 'account' | 'public'; conv: number; res?: { status: number; body: any; text: string } };
    const sends: Sent[] = [];
    for (const who of [a, b]) {
      // Every special text once through the account API (alternating its two conversations) and once
      // through the public API; five plain messages per account (ten in all), alternating the two.
      [...ACCEPTED, ...REFUSED].forEach((content, i) => {
        sends.push({ who, content, via: 'account', conv: who.convs[i % 4] });
        sends.push({ who, content, via: 'public', conv: who.publicConvs[i % 4] });
      });
      for (let i = 0; i < 5; i++) {
        const content = `plain ${i} ${unique()}`;
        sends.push(
          i % 2 ? { who, content, via: 'public', conv: who.publicConvs[i % 4] } : { who, content, via: 'account', conv: who.convs[i % 4] },
        );
      }
    }
    await Promise.all(
      sends.map(async (m) => {
        m.res =
          m.via === 'account'
            ? await m.who.s.admin.api.post(`${m.who.s.base}/conversations/${m.conv}/messages`, { content: m.content })
            : await api.post(`${conversationPath(m.who.inbox, m.who.sourceId, m.conv)}/messages`, { content: m.content });
      }),
    );

    for (const m of sends) {
      if (REFUSED.includes(m.content)) {
        const err = expectErrorBody(m.res as never, 422);
        expect(err.errors).toEqual([{ field: 'content', message: expect.any(String), code: 'invalid' }]);
      } else {
        expect(m.res!.status, `${m.via} ${JSON.stringify(m.content)}: ${m.res!.text}`).toBe(200);
        expect(m.res!.body.content).toBe(m.content);
      }
    }
    const acked = sends.filter((m) => m.res!.status === 200);
    expect(acked).toHaveLength(2 * (2 * ACCEPTED.length + 5));

    // A last message in every conversation: events of one conversation arrive in order, so once it is
    // in, everything sent before it is too, and any duplicate would have arrived as well.
    const lasts: { who: Setup; id: number }[] = [];
    for (const who of [a, b]) {
      for (const conv of who.convs) {
        const r = await who.s.admin.api.post(`${who.s.base}/conversations/${conv}/messages`, { content: 'last' });
        lasts.push({ who, id: r.body.id });
      }
      for (const conv of who.publicConvs) {
        const r = await api.post(`${conversationPath(who.inbox, who.sourceId, conv)}/messages`, { content: 'last' });
        lasts.push({ who, id: r.body.id });
      }
    }
    await until(() => lasts.every((l) => created(l.who.hook).some((r) => r.json.id === l.id)), WAIT);

    for (const who of [a, b]) {
      const mine = acked.filter((m) => m.who === who);
      const got = created(who.hook).filter((r) => r.json.content !== 'last');
      // Exactly once each, with the text as sent, and nothing of the other account.
      expect(got.map((r) => r.json.id).sort()).toEqual(mine.map((m) => m.res!.body.id).sort());
      for (const m of mine) {
        const hit = got.filter((r) => r.json.id === m.res!.body.id);
        expect(hit).toHaveLength(1);
        expect(hit[0].json.content).toBe(m.content);
        expect(hit[0].json.account.id).toBe(who.s.accountId);
      }
    }
    // Nearly fifty writes at once on a shared, busy machine: allow for the queueing.
  }, 180_000);

  it('stores nothing of a refused message, and reads accepted text back as sent', async () => {
    for (const who of [a, b]) {
      const contents: string[] = [];
      for (const conv of [...who.convs, ...who.publicConvs]) {
        const list = await who.s.admin.api.get(`${who.s.base}/conversations/${conv}/messages`);
        expect(list.status).toBe(200);
        contents.push(...list.body.payload.map((m: { content: string }) => m.content));
      }
      for (const bad of REFUSED) expect(contents).not.toContain(bad);
      for (const good of ACCEPTED) expect(contents.filter((c) => c === good)).toHaveLength(2);
    }
  });

  it('applies the rule to every text field of every body, naming the nested field', async () => {
    const { s } = a;
    const contact = await s.admin.api.post(`${s.base}/contacts`, {
      name: 'Zoë 👩‍💻 \uffff',
      email: `${unique('zoe')}@example.com`,
      custom_attributes: { plan: 'pro', note: 'bad \u0000 note' },
    });
    expect(expectErrorBody(contact, 422).errors).toEqual([
      { field: 'custom_attributes.note', message: expect.stringMatching(/NUL/), code: 'invalid' },
    ]);
    // The Chatwoot root key is part of the path as sent.
    const wrapped = await s.platform.post('/platform/api/v1/accounts', { name: 'ok', custom_attributes: { tags: ['a', 'b\ud800'] } });
    expect(expectErrorBody(wrapped, 422).errors[0]).toMatchObject({ field: 'custom_attributes.tags[1]', code: 'invalid' });
    const pub = await (await anonymous()).post(`${inboxPath(a.inbox)}/contacts`, { name: 'nul\u0000' });
    expect(expectErrorBody(pub, 422).errors[0]).toMatchObject({ field: 'name', code: 'invalid' });

    // The same contact without the NUL is stored and announced with its astral and noncharacter text.
    const ok = await s.admin.api.post(`${s.base}/contacts`, {
      name: 'Zoë 👩‍💻 \uffff',
      email: `${unique('zoe')}@example.com`,
      custom_attributes: { note: '𝄞 \ufffe' },
    });
    expect(ok.status).toBe(200);
    const id = ok.body.payload.contact.id;
    const ev = await until(() => a.hook.received.find((r) => r.json?.event === 'contact_created' && r.json.id === id), WAIT);
    expect(ev.json.name).toBe('Zoë 👩‍💻 \uffff');
    expect(ev.json.custom_attributes).toEqual({ note: '𝄞 \ufffe' });
  });
});
