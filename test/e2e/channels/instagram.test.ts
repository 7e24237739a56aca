import { createHmac, randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overrideEnv } from '../../support/env.ts';
import { PNG, startFakeProvider, type FakeProvider } from '../../support/providers.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { client, runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { until, untilState } from '../../support/until.ts';
import { deliveries, messageBySource as bySource, messagesOf as readMessages } from './fixtures.ts';

// Instagram through a Facebook page, end to end: the page registered (a fake Graph API on 127.0.0.1 names its
// Instagram account), Meta's documented `instagram` webhooks posted signed to /webhooks/instagram are stored as
// Chatwoot stores them (a text, a story reply, a shared post, a reel), an unsend marks the message deleted, the
// echo of our own send is not stored twice, a read receipt reads; replies go form-encoded to Graph v11.0, and
// Graph's errors fail them as "<code> - <message>".

const APP_SECRET = 'ig-app-secret';
const VERIFY = 'ig-verify-token';
const PAGE_TOKEN = 'EAAGigpage';

const sign = (body: string, secret = APP_SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('Instagram channel (an account linked to a page)', () => {
  let graph: FakeProvider;
  let hook: Receiver;
  let s: SeededAccount;
  let restoreEnv: () => void;
  let base: string;
  const pageId = String(randomInt(100_000_000_000, 999_999_999_999));
  const igId = `1784${randomInt(100_000_000_000, 999_999_999_999)}`;
  let midSeq = 0;
  let sent = 0;
  let refusal: { status: number; json: unknown } | undefined;

  const igsid = () => String(randomInt(1_000_000_000_000, 9_999_999_999_999));
  const mid = () => `aWdfZAG1faXRlbToxOklHTWVzc2FnZAU${Date.now().toString(36)}${++midSeq}`;
  const payload = (...messaging: Record<string, unknown>[]) =>
    JSON.stringify({ object: 'instagram', entry: [{ id: igId, time: Date.now(), messaging }] });
  const incoming = (from: string, message: Record<string, unknown>) => ({
    sender: { id: from },
    recipient: { id: igId },
    timestamp: Date.now(),
    message: { mid: mid(), ...message },
  });
  const midOf = (m: { message: unknown }) => (m.message as { mid: string }).mid;
  const post = (body: string, headers: Record<string, string> = { 'x-hub-signature-256': sign(body) }) =>
    client(base).post('/webhooks/instagram', body, { 'content-type': 'application/json', ...headers });

  const conversationsOf = async () => {
    const res = await s.admin.api.get(`${s.base}/conversations?status=all`);
    expect(res.status).toBe(200);
    return res.body.data.payload as any[];
  };
  const messagesOf = (conversationId: number) => readMessages(s, conversationId);
  const conversationOf = (m: string) =>
    until(
      async () => {
        for (const c of await conversationsOf()) if ((await messagesOf(c.id)).some((x) => x.source_id === m)) return c;
        return undefined;
      },
      { what: `the conversation of ${m}` },
    );
  const messageBySource = (conversationId: number, sourceId: string) => bySource(s, conversationId, sourceId);
  const events = (name: string, match?: (j: any) => boolean) => deliveries(hook, name, match);

  beforeAll(async () => {
    const rt = await runtime();
    base = rt.baseUrl;
    graph = await startFakeProvider();
    graph.on('POST', /^\/v3\.2\/me\/subscribed_apps$/, () => ({ json: { success: true } }));
    graph.on('GET', /^\/v3\.2\/me$/, () => ({ json: { instagram_business_account: { id: igId }, id: pageId } }));
    graph.on('GET', /^\/\d+$/, () => ({ json: { name: 'Lena K', username: 'lena.k', profile_pic: 'https://x.example/p.jpg' } }));
    graph.on('GET', /^\/cdn\//, (req) =>
      req.path.endsWith('.mp4')
        ? { body: Buffer.from('0000ftypmp42'), headers: { 'content-type': 'video/mp4' } }
        : { body: PNG, headers: { 'content-type': 'image/png' } },
    );
    graph.on('POST', /^\/v11\.0\/me\/messages$/, () => refusal ?? { json: { recipient_id: '1', message_id: `aWdOUT${++sent}` } });
    restoreEnv = overrideEnv({ FACEBOOK_GRAPH_BASE_URL: graph.url, FB_APP_SECRET: APP_SECRET, INSTAGRAM_VERIFY_TOKEN: VERIFY });
    s = await seedAccount();
    hook = await startReceiver();
    const wh = await s.admin.api.post(`${s.base}/webhooks`, { url: hook.url, subscriptions: ['message_created', 'message_updated'] });
    expect(wh.status).toBe(200);
    const r = await s.admin.api.post(`${s.base}/callbacks/register_facebook_page`, {
      user_access_token: 'EAAGuser',
      page_access_token: PAGE_TOKEN,
      page_id: pageId,
      inbox_name: 'Acme IG',
    });
    expect(r.status).toBe(200);
    const inbox = await s.admin.api.get(`${s.base}/inboxes/${r.body.id}`);
    expect(inbox.body.instagram_id).toBe(igId);
  }, 120_000);

  afterAll(async () => {
    restoreEnv?.();
    await graph?.close();
    await hook?.close();
  });

  it('answers GET /webhooks/instagram with the challenge for the verify token only; refuses unsigned webhooks', async () => {
    const ok = await client(base).get(`/webhooks/instagram?hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=987`);
    expect(ok.status).toBe(200);
    expect(ok.text).toBe('987');
    const wrong = await client(base).get('/webhooks/instagram?hub.mode=subscribe&hub.verify_token=no&hub.challenge=987');
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('987');
    const body = payload(incoming(igsid(), { text: 'forged' }));
    expect((await post(body, {})).status).toBe(401);
    expect((await post(body, { 'x-hub-signature-256': sign(body, 'other') })).status).toBe(401);
  });

  it('stores a text, a story reply, a shared post and a reel as Chatwoot does; a redelivery creates nothing; an unsend deletes', async () => {
    const who = igsid();
    const text = incoming(who, { text: 'hey there' });
    const body = payload(text);
    const first = await post(body);
    expect(first.status).toBe(200);
    expect(first.text).toBe('ok');
    await post(body);
    const c = await conversationOf(midOf(text));
    expect(c.additional_attributes).toMatchObject({ type: 'instagram_direct_message' });
    expect(c.meta.sender.name).toBe('Lena K');
    const story = incoming(who, { text: 'love this', reply_to: { story: { id: '18000000000000001', url: `${graph.url}/cdn/story.jpg` } } });
    const post1 = incoming(who, {
      attachments: [{ type: 'ig_post', payload: { url: 'https://www.instagram.com/p/Cxyz/', title: 'A post' } }],
    });
    const reel = incoming(who, {
      attachments: [{ type: 'ig_reel', payload: { url: `${graph.url}/cdn/reel.mp4`, title: 'A reel', reel_video_id: '1' } }],
    });
    await post(payload(story, post1, reel));
    const st = await messageBySource(c.id, midOf(story));
    expect(st.content).toBe('love this');
    expect(st.content_attributes).toMatchObject({ story_id: '18000000000000001', story_url: `${graph.url}/cdn/story.jpg` });
    const p = await messageBySource(c.id, midOf(post1));
    expect(p.content).toBe('Shared post');
    expect(p.attachments[0]).toMatchObject({ file_type: 'fallback', data_url: 'https://www.instagram.com/p/Cxyz/' });
    const r = await messageBySource(c.id, midOf(reel));
    expect(r.attachments[0]).toMatchObject({ file_type: 'video' });
    expect((await messagesOf(c.id)).filter((m) => m.source_id === midOf(text))).toHaveLength(1);

    const unsend = { sender: { id: who }, recipient: { id: igId }, timestamp: Date.now(), message: { mid: midOf(reel), is_deleted: true } };
    await post(payload(unsend));
    const gone = await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.source_id === midOf(reel)),
      (m) => m.content_attributes?.deleted === true,
    );
    expect(gone.content).toBe('This message was deleted');
    expect(gone.attachments ?? []).toEqual([]);
    await until(() => events('message_updated', (j) => j.source_id === midOf(reel) && j.content === 'This message was deleted').length > 0);
  });

  it('a reply sent in two parts (the image, then the text): the echo of each part is known, neither is stored', async () => {
    const who = igsid();
    const hi = incoming(who, { text: 'photo please' });
    await post(payload(hi));
    const c = await conversationOf(midOf(hi));
    const mids: string[] = [];
    graph.on('POST', /^\/v11\.0\/me\/messages$/, (req) => {
      if (refusal) return refusal;
      const id = `aWdOUT${++sent}`;
      if (req.form.get('recipient[id]') === who) mids.push(id);
      return { json: { recipient_id: '1', message_id: id } };
    });
    const form = new FormData();
    form.append('content', 'Here it is');
    form.append('attachments[]', new Blob([PNG], { type: 'image/png' }), 'pic.png');
    const reply = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, form);
    expect(reply.status).toBe(200);
    const parts = await graph.waitFor((x) => x.path === '/v11.0/me/messages' && x.form.get('recipient[id]') === who, 2);
    expect(parts.map((p) => (p.form.get('message[text]') ? 'text' : p.form.get('message[attachment][type]')))).toEqual(['image', 'text']);
    const saved = await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === reply.body.id),
      (m) => typeof m?.source_id === 'string',
    );
    const before = (await messagesOf(c.id)).length;
    // Meta echoes each part with the mid its request was answered with: the image's first, then the text's.
    expect(mids).toHaveLength(2);
    expect(mids[1]).toBe(saved.source_id);
    for (const [i, m] of mids.entries())
      await post(
        payload({
          sender: { id: igId },
          recipient: { id: who },
          timestamp: Date.now(),
          message: {
            mid: m,
            is_echo: true,
            ...(i === 0 ? { attachments: [{ type: 'image', payload: { url: `${graph.url}/cdn/x.png` } }] } : { text: 'Here it is' }),
          },
        }),
      );
    // Processed in order before this probe (the same contact's queue group).
    const probe = incoming(who, { text: 'thanks' });
    await post(payload(probe));
    await messageBySource(c.id, midOf(probe));
    expect((await messagesOf(c.id)).length).toBe(before + 1);
  });

  it('replies form-encoded to Graph v11.0; its echo is not stored twice; a read receipt reads; errors are "<code> - <message>"', async () => {
    const who = igsid();
    const hi = incoming(who, { text: 'hi' });
    await post(payload(hi));
    const c = await conversationOf(midOf(hi));
    const reply = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'Hello **Lena**' });
    expect(reply.status).toBe(200);
    const [req] = await graph.waitFor((x) => x.path === '/v11.0/me/messages' && x.form.get('recipient[id]') === who);
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(req.form)).toEqual({ 'recipient[id]': who, 'message[text]': 'Hello Lena' });
    expect(req.query.get('access_token')).toBe(PAGE_TOKEN);
    expect(req.query.get('appsecret_proof')).toBe(createHmac('sha256', APP_SECRET).update(PAGE_TOKEN).digest('hex'));
    const saved = await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === reply.body.id),
      (m) => typeof m?.source_id === 'string',
    );
    // Meta echoes our own send: the same mid, already stored.
    await post(
      payload({
        sender: { id: igId },
        recipient: { id: who },
        timestamp: Date.now(),
        message: { mid: saved.source_id, text: 'Hello Lena', is_echo: true },
      }),
    );
    await post(payload({ sender: { id: who }, recipient: { id: igId }, timestamp: Date.now(), read: { mid: saved.source_id } }));
    await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === reply.body.id),
      (m) => m.status === 'read',
    );
    expect((await messagesOf(c.id)).filter((m) => m.source_id === saved.source_id)).toHaveLength(1);

    refusal = { status: 400, json: { error: { message: 'The user is not available', type: 'IGApiException', code: 551 } } };
    const bad = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'still there?' });
    const failed = await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === bad.body.id),
      (m) => m.status === 'failed',
    );
    expect(failed.content_attributes.external_error).toBe('551 - The user is not available');
    refusal = undefined;

    // Chatwoot's ENABLE_MESSENGER_CHANNEL_HUMAN_AGENT: every Instagram send through the page tagged HUMAN_AGENT, and
    // the window (`can_reply`) 7 days instead of 24 hours.
    const restore = overrideEnv({ ENABLE_MESSENGER_CHANNEL_HUMAN_AGENT: 'true' });
    try {
      await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'tagged' });
      const [tagged] = await graph.waitFor((x) => x.path === '/v11.0/me/messages' && x.form.get('message[text]') === 'tagged');
      expect(Object.fromEntries(tagged.form)).toEqual({
        'recipient[id]': who,
        'message[text]': 'tagged',
        messaging_type: 'MESSAGE_TAG',
        tag: 'HUMAN_AGENT',
      });
      expect((await s.admin.api.get(`${s.base}/conversations/${c.id}`)).body.can_reply).toBe(true);
    } finally {
      restore();
    }
  });
});
