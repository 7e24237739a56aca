import { createHmac, randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overrideEnv } from '../../support/env.ts';
import { PNG, startFakeProvider, type FakeProvider } from '../../support/providers.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { client, runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { until, untilState } from '../../support/until.ts';
import { deliveries, messageBySource as bySource, messagesOf as readMessages } from './fixtures.ts';

// Facebook Messenger, end to end: a page registered with the dashboard's tokens (a fake Graph API on 127.0.0.1
// takes the subscription), Meta's documented `page` webhooks posted signed to /bot are stored as Chatwoot stores
// them (messages, attachments, echoes), delivery and read watermarks move replies forward up to the watermark only;
// agents' replies reach the fake with Chatwoot's bodies and the appsecret_proof, and Graph's errors fail them.

const APP_SECRET = 'fb-app-secret';
const APP_ID = '1517776481860111';
const VERIFY = 'fb-verify-token';
const PAGE_TOKEN = 'EAAGpage';

const sign = (body: string, secret = APP_SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const proof = (token: string) => createHmac('sha256', APP_SECRET).update(token).digest('hex');

describe('Facebook Messenger channel', () => {
  let graph: FakeProvider;
  let hook: Receiver;
  let s: SeededAccount;
  let restoreEnv: () => void;
  let base: string;
  let inboxId: number;
  const pageId = String(randomInt(100_000_000_000, 999_999_999_999));
  let midSeq = 0;
  let sent = 0;
  let refusal: { status: number; json: unknown } | undefined;

  const psid = () => String(randomInt(1_000_000_000_000, 9_999_999_999_999));
  const mid = () => `m_${Date.now().toString(36)}${++midSeq}`;
  const payload = (...messaging: Record<string, unknown>[]) =>
    JSON.stringify({ object: 'page', entry: [{ id: pageId, time: Date.now(), messaging }] });
  const incoming = (from: string, message: Record<string, unknown>) => ({
    sender: { id: from },
    recipient: { id: pageId },
    timestamp: Date.now(),
    message: { mid: mid(), ...message },
  });

  const post = (body: string, headers: Record<string, string> = { 'x-hub-signature-256': sign(body) }) =>
    client(base).post('/bot', body, { 'content-type': 'application/json', ...headers });

  const conversationsOf = async () => {
    const res = await s.admin.api.get(`${s.base}/conversations?inbox_id=${inboxId}&status=all`);
    expect(res.status).toBe(200);
    return res.body.data.payload as any[];
  };
  /** The conversation holding the message `mid` (a Messenger contact has no field of its own to find it by). */
  const conversationOf = (mid: string) =>
    until(
      async () => {
        for (const c of await conversationsOf()) if ((await messagesOf(c.id)).some((m) => m.source_id === mid)) return c;
        return undefined;
      },
      { what: `the conversation of ${mid}` },
    );
  const messagesOf = (conversationId: number) => readMessages(s, conversationId);
  const messageBySource = (conversationId: number, sourceId: string) => bySource(s, conversationId, sourceId);
  const events = (name: string, match?: (j: any) => boolean) => deliveries(hook, name, match);

  beforeAll(async () => {
    const rt = await runtime();
    base = rt.baseUrl;
    graph = await startFakeProvider();
    graph.on('POST', /^\/v3\.2\/me\/subscribed_apps$/, () => ({ json: { success: true } }));
    graph.on('GET', /^\/v3\.2\/me$/, () => ({ json: { instagram_business_account: { id: '17841400000000001' }, id: pageId } }));
    graph.on('GET', /^\/v3\.2\/\d+$/, () => ({
      json: { first_name: 'Maria', last_name: 'Silva', profile_pic: 'https://x.example/p.png' },
    }));
    graph.on('GET', /^\/cdn\//, () => ({ body: PNG, headers: { 'content-type': 'image/png' } }));
    graph.on('GET', /^\/oauth\/access_token$/, (req) =>
      req.query.get('fb_exchange_token') === 'omniauth-token' && req.query.get('client_secret') === APP_SECRET
        ? { json: { access_token: 'EAAlonglived', token_type: 'bearer', expires_in: 5183944 } }
        : { status: 400, json: { error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 } } },
    );
    graph.on('GET', /^\/me\/accounts$/, () => ({
      json: {
        data: [
          { id: pageId, name: 'Acme Page', access_token: 'EAAGrenewed', category: 'Brand', tasks: ['MESSAGING'] },
          { id: '42000000001', name: 'Other Page', access_token: 'EAAGother', category: 'Shop', tasks: ['MESSAGING'] },
        ],
        paging: { cursors: { before: 'a', after: 'b' } },
      },
    }));
    graph.on('POST', /^\/v3\.2\/me\/messages$/, () => refusal ?? { json: { recipient_id: '1', message_id: `m_OUT${++sent}` } });
    restoreEnv = overrideEnv({
      FACEBOOK_GRAPH_BASE_URL: graph.url,
      FB_APP_SECRET: APP_SECRET,
      FB_APP_ID: APP_ID,
      FB_VERIFY_TOKEN: VERIFY,
    });
    s = await seedAccount();
    hook = await startReceiver();
    const wh = await s.admin.api.post(`${s.base}/webhooks`, {
      url: hook.url,
      subscriptions: ['contact_created', 'conversation_created', 'message_created', 'message_updated'],
    });
    expect(wh.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    restoreEnv?.();
    await graph?.close();
    await hook?.close();
  });

  it('registers a page with the dashboard’s tokens: Chatwoot’s answer, the page subscribed with its appsecret_proof', async () => {
    const r = await s.admin.api.post(`${s.base}/callbacks/register_facebook_page`, {
      user_access_token: 'EAAGuser',
      page_access_token: PAGE_TOKEN,
      page_id: pageId,
      inbox_name: 'Acme Page',
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: expect.any(Number),
      channel_id: expect.any(Number),
      name: 'Acme Page',
      channel_type: 'Channel::FacebookPage',
      avatar_url: expect.any(String),
      page_id: pageId,
      enable_auto_assignment: true,
    });
    inboxId = r.body.id;
    const [sub] = await graph.waitFor((x) => x.path === '/v3.2/me/subscribed_apps');
    expect(sub.query.get('appsecret_proof')).toBe(proof(PAGE_TOKEN));
    expect(sub.json).toEqual({
      access_token: PAGE_TOKEN,
      subscribed_fields: ['messages', 'message_deliveries', 'message_echoes', 'message_reads', 'standby', 'messaging_handovers'],
    });
    const inbox = await s.admin.api.get(`${s.base}/inboxes/${inboxId}`);
    expect(inbox.body).toMatchObject({ page_id: pageId, reauthorization_required: false, instagram_id: '17841400000000001' });
    expect(JSON.stringify(inbox.body)).not.toContain(PAGE_TOKEN);
    const again = await s.admin.api.post(`${s.base}/callbacks/register_facebook_page`, {
      user_access_token: 'u',
      page_access_token: 'p',
      page_id: pageId,
      inbox_name: 'Twice',
    });
    expect(again.status).toBe(422);
  });

  it('answers GET /bot with the challenge for the verify token only', async () => {
    const ok = await client(base).get(`/bot?hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=1158201444`);
    expect(ok.status).toBe(200);
    expect(ok.text).toBe('1158201444');
    const wrong = await client(base).get('/bot?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1158201444');
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('1158201444');
    expect(wrong.body).toMatchObject({ error: 'Error; wrong verify token', description: 'Error; wrong verify token' });
  });

  it('stores a text from a contact named by Graph, announced; a redelivery creates nothing; a bad or missing signature is 401', async () => {
    const who = psid();
    const m = incoming(who, { text: 'hello, world!' });
    const body = payload(m);
    expect((await post(body)).status).toBe(200);
    expect((await post(body)).status).toBe(200);
    const c = await conversationOf((m.message as { mid: string }).mid);
    expect(c.meta.sender.name).toBe('Maria Silva');
    const stored = await messageBySource(c.id, (m.message as { mid: string }).mid);
    expect(stored).toMatchObject({ content: 'hello, world!', message_type: 0, sender_type: 'Contact' });
    await until(() => events('message_created', (j) => j.source_id === stored.source_id).length > 0, {
      what: 'message_created',
      timeoutMs: 20_000,
    });

    const forged = payload(incoming(who, { text: 'forged' }));
    expect((await post(forged, {})).status).toBe(401);
    expect((await post(forged, { 'x-hub-signature-256': sign(forged, 'nope') })).status).toBe(401);
    // The legacy sha1 header Chatwoot's gem checks is taken too.
    const legacy = incoming(who, { text: 'legacy' });
    const lbody = payload(legacy);
    expect((await post(lbody, { 'x-hub-signature': `sha1=${createHmac('sha1', APP_SECRET).update(lbody).digest('hex')}` })).status).toBe(
      200,
    );
    await messageBySource(c.id, (legacy.message as { mid: string }).mid);
    const contents = (await messagesOf(c.id)).map((x) => x.content);
    expect(contents).toEqual(['hello, world!', 'legacy']);
    expect(events('message_created', (j) => j.source_id === stored.source_id)).toHaveLength(1);
  });

  it('stores an image, a location, and an echo from another app as outgoing without a sender; its own app’s echo not', async () => {
    const who = psid();
    const img = incoming(who, { attachments: [{ type: 'image', payload: { url: `${graph.url}/cdn/photo.png` } }] });
    await post(payload(img));
    const c = await conversationOf((img.message as { mid: string }).mid);
    const im = await messageBySource(c.id, (img.message as { mid: string }).mid);
    expect(im.attachments[0]).toMatchObject({ file_type: 'image', file_size: PNG.length });

    const loc = incoming(who, {
      attachments: [
        { type: 'location', title: 'Pinned', url: 'https://maps.example/x', payload: { coordinates: { lat: 38.7223, long: -9.1393 } } },
      ],
    });
    await post(payload(loc));
    const l = await messageBySource(c.id, (loc.message as { mid: string }).mid);
    expect(l.attachments[0]).toMatchObject({
      file_type: 'location',
      coordinates_lat: 38.7223,
      coordinates_long: -9.1393,
      fallback_title: 'Pinned',
    });

    const echoMid = mid();
    const ownMid = mid();
    await post(
      payload(
        {
          sender: { id: pageId },
          recipient: { id: who },
          timestamp: Date.now(),
          message: { is_echo: true, app_id: 263902037430900, mid: echoMid, text: 'from the Page inbox' },
        },
        {
          sender: { id: pageId },
          recipient: { id: who },
          timestamp: Date.now(),
          message: { is_echo: true, app_id: Number(APP_ID), mid: ownMid, text: 'ours' },
        },
      ),
    );
    const echo = await messageBySource(c.id, echoMid);
    expect(echo).toMatchObject({ message_type: 1, content: 'from the Page inbox' });
    // No sender: Chatwoot's echo has none (the JSON then leaves `sender` out).
    expect(echo.sender).toBeUndefined();
    expect((await messagesOf(c.id)).some((x) => x.source_id === ownMid)).toBe(false);
    // The echo has its source_id: it is never sent back to Meta.
    expect(graph.requests.some((x) => x.path === '/v3.2/me/messages' && x.json?.message?.text === 'from the Page inbox')).toBe(false);
  });

  it('sends replies with Chatwoot’s bodies and appsecret_proof; quick replies; watermarks mark only what they cover', async () => {
    const who = psid();
    const hi = incoming(who, { text: 'hi' });
    await post(payload(hi));
    const c = await conversationOf((hi.message as { mid: string }).mid);
    const first = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'Hi **there**' });
    expect(first.status).toBe(200);
    const [req] = await graph.waitFor((x) => x.path === '/v3.2/me/messages' && x.json?.recipient?.id === who);
    expect(req.query.get('access_token')).toBe(PAGE_TOKEN);
    expect(req.query.get('appsecret_proof')).toBe(proof(PAGE_TOKEN));
    expect(req.json).toEqual({
      recipient: { id: who },
      message: { text: 'Hi there' },
      messaging_type: 'MESSAGE_TAG',
      tag: 'ACCOUNT_UPDATE',
    });
    const one = await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === first.body.id),
      (m) => typeof m?.source_id === 'string',
    );

    // The next reply in a later second (created_at is in seconds), so that a watermark can fall between them.
    await until(() => Math.floor(Date.now() / 1000) > one.created_at, { what: 'the next second' });
    const select = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, {
      content: 'Pick one',
      content_type: 'input_select',
      content_attributes: {
        items: [
          { title: 'Yes', value: 'yes' },
          { title: 'No', value: 'no' },
        ],
      },
    });
    const [qr] = await graph.waitFor((x) => x.json?.recipient?.id === who && !!x.json?.message?.quick_replies);
    expect(qr.json.message).toEqual({
      text: 'Pick one',
      quick_replies: [
        { content_type: 'text', title: 'Yes', payload: 'Yes' },
        { content_type: 'text', title: 'No', payload: 'No' },
      ],
    });
    const two = await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === select.body.id),
      (m) => typeof m?.source_id === 'string',
    );
    // Watermarks are milliseconds: a delivery up to the first reply's second marks it, not a later one.
    if (two.created_at === one.created_at)
      throw new Error('the replies were made in the same second; the watermark cannot tell them apart');
    await post(
      payload({
        sender: { id: who },
        recipient: { id: pageId },
        delivery: { mids: [one.source_id], watermark: one.created_at * 1000 + 1 },
      }),
    );
    await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === one.id),
      (m) => m.status === 'delivered',
    );
    const probe = incoming(who, { text: 'probe' });
    await post(payload(probe));
    await messageBySource(c.id, (probe.message as { mid: string }).mid);
    expect((await messagesOf(c.id)).find((m) => m.id === two.id).status).toBe('sent');
    await post(payload({ sender: { id: who }, recipient: { id: pageId }, timestamp: Date.now(), read: { watermark: Date.now() } }));
    await untilState(
      async () => (await messagesOf(c.id)).filter((m) => m.id === one.id || m.id === two.id),
      (list) => list.every((m) => m.status === 'read'),
    );
    // A late delivery does not undo read.
    await post(payload({ sender: { id: who }, recipient: { id: pageId }, delivery: { watermark: Date.now() } }));
    const probe2 = incoming(who, { text: 'probe 2' });
    await post(payload(probe2));
    await messageBySource(c.id, (probe2.message as { mid: string }).mid);
    expect((await messagesOf(c.id)).find((m) => m.id === one.id).status).toBe('read');
  }, 60_000);

  it('fails a reply Graph refuses with its message; token errors mark the inbox reauthorization_required', async () => {
    const who = psid();
    const hi = incoming(who, { text: 'hi' });
    await post(payload(hi));
    const c = await conversationOf((hi.message as { mid: string }).mid);
    refusal = { status: 400, json: { error: { message: '(#100) No matching user found', type: 'OAuthException', code: 100 } } };
    const r = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'hello?' });
    const failed = await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === r.body.id),
      (m) => m.status === 'failed',
    );
    expect(failed.content_attributes.external_error).toBe('(#100) No matching user found');
    refusal = {
      status: 400,
      json: { error: { message: 'Error validating access token: Session has expired', type: 'OAuthException', code: 190 } },
    };
    for (const text of ['a', 'b']) {
      const m = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: text });
      await untilState(
        async () => (await messagesOf(c.id)).find((x) => x.id === m.body.id),
        (x) => x.status === 'failed',
      );
    }
    const inbox = await s.admin.api.get(`${s.base}/inboxes/${inboxId}`);
    expect(inbox.body.reauthorization_required).toBe(true);
    refusal = undefined;
  }, 60_000);

  it('takes a payload for several pages near the size limit: each page’s copy queued (the body stored once), each stored', async () => {
    // Pages without a linked Instagram account (their instagram_id would collide).
    graph.on('GET', /^\/v3\.2\/me$/, (req) =>
      req.query.get('access_token')?.startsWith('EAAGbig')
        ? { json: { id: 'page' } }
        : { json: { instagram_business_account: { id: '17841400000000001' }, id: pageId } },
    );
    const pages = Array.from({ length: 5 }, () => String(randomInt(100_000_000_000, 999_999_999_999)));
    const inboxes: number[] = [];
    for (const [n, page] of pages.entries()) {
      const r = await s.admin.api.post(`${s.base}/callbacks/register_facebook_page`, {
        user_access_token: 'EAAGuser',
        page_access_token: `EAAGbig${n}`,
        page_id: page,
        inbox_name: `Big ${n}`,
      });
      expect(r.status).toBe(200);
      inboxes.push(r.body.id);
    }
    // ~235 KB (the webhook limit is 240 KB): five inboxes' copies are over a queue batch's limit together.
    const text = (n: number) => `${n}:${'x'.repeat(46_000)}`;
    const mids = pages.map(() => mid());
    const body = JSON.stringify({
      object: 'page',
      entry: pages.map((page, n) => ({
        id: page,
        time: Date.now(),
        messaging: [{ sender: { id: psid() }, recipient: { id: page }, timestamp: Date.now(), message: { mid: mids[n], text: text(n) } }],
      })),
    });
    expect(body.length).toBeGreaterThan(230_000);
    expect((await post(body)).status).toBe(200);
    for (const [n, inbox] of inboxes.entries()) {
      const stored = await until(
        async () => {
          const list = await s.admin.api.get(`${s.base}/conversations?inbox_id=${inbox}&status=all`);
          const c = (list.body.data.payload as any[])[0];
          return c ? (await messagesOf(c.id)).find((m) => m.source_id === mids[n]) : undefined;
        },
        { what: `page ${n}'s message` },
      );
      expect(stored.content).toBe(text(n));
    }
  });

  it('lists the user’s pages flagged by whether the account holds them, and reauthorizes a page with fresh tokens', async () => {
    const pages = await s.admin.api.post(`${s.base}/callbacks/facebook_pages`, { omniauth_token: 'omniauth-token' });
    expect(pages.status).toBe(200);
    expect(pages.body).toEqual({
      data: {
        page_details: [
          { id: pageId, name: 'Acme Page', access_token: 'EAAGrenewed', category: 'Brand', tasks: ['MESSAGING'], exists: true },
          { id: '42000000001', name: 'Other Page', access_token: 'EAAGother', category: 'Shop', tasks: ['MESSAGING'], exists: false },
        ],
        user_access_token: 'EAAlonglived',
      },
    });
    const [listed] = graph.requests.filter((r) => r.path === '/me/accounts');
    expect(listed.query.get('appsecret_proof')).toBe(proof('EAAlonglived'));
    expect((await s.admin.api.post(`${s.base}/callbacks/facebook_pages`, { omniauth_token: 'stale' })).status).toBe(422);

    const re = await s.admin.api.post(`${s.base}/callbacks/reauthorize_page`, { omniauth_token: 'omniauth-token', inbox_id: inboxId });
    expect(re.status).toBe(200);
    expect(re.body.data).toMatchObject({ id: inboxId, page_id: pageId, reauthorization_required: false });
    // Sends use the new page token.
    const who = psid();
    const hi = incoming(who, { text: 'again' });
    await post(payload(hi));
    const c = await conversationOf((hi.message as { mid: string }).mid);
    await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'welcome back' });
    const [req] = await graph.waitFor((x) => x.path === '/v3.2/me/messages' && x.json?.recipient?.id === who);
    expect(req.query.get('access_token')).toBe('EAAGrenewed');
    expect(req.query.get('appsecret_proof')).toBe(proof('EAAGrenewed'));
    const other = await s.admin.api.post(`${s.base}/inboxes`, { name: 'api', channel: { type: 'api' } });
    expect(
      (await s.admin.api.post(`${s.base}/callbacks/reauthorize_page`, { omniauth_token: 'omniauth-token', inbox_id: other.body.id }))
        .status,
    ).toBe(422);
  });
});
