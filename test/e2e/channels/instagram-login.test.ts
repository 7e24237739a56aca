import { createHmac, randomInt } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { overrideEnv } from '../../support/env.ts';
import { PNG, startFakeProvider, type FakeProvider } from '../../support/providers.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { forgedJwt } from '../../support/http.ts';
import { client, runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { until, untilState } from '../../support/until.ts';
import { deliveries, messageBySource, messagesOf } from './fixtures.ts';

// The Instagram-login inbox (Chatwoot's Channel::Instagram), end to end against a fake Instagram OAuth host and a
// fake graph.instagram.com on 127.0.0.1: the authorization URL, the OAuth callback (code → short-lived token →
// long-lived token → the account → the inbox, the browser redirected as Chatwoot does; a second login reauthorizes
// the same inbox), Instagram's signed webhooks for the account stored in it, replies form-encoded to
// /v22.0/{ig id}/messages with the token refreshed when it nears expiry, `HUMAN_AGENT` when the installation says
// so, and a read receipt that reads every earlier reply too.

const APP_ID = '990011223344';
const APP_SECRET = 'ig-login-app-secret';
const FB_SECRET = 'meta-app-secret';
const FRONTEND = 'https://chat.example.com';
const SHORT = 'IGQshort';
const LONG = 'IGQlong-1';
const FRESH = 'IGQlong-fresh';

const sign = (body: string, secret = APP_SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('Instagram-login inbox', () => {
  let oauth: FakeProvider;
  let graph: FakeProvider;
  let hook: Receiver;
  let s: SeededAccount;
  let restoreEnv: () => void;
  let base: string;
  let inboxId: number;
  const igUserId = `1784${randomInt(100_000_000_000, 999_999_999_999)}`;
  let longLivedIn = 5 * 24 * 3600;
  let sent = 0;
  let refusal: { status: number; json: unknown } | undefined;
  let midSeq = 0;

  const igsid = () => String(randomInt(1_000_000_000_000, 9_999_999_999_999));
  const mid = () => `aWdfZAG1faXRlbToxOklHTWVzc2FnZAU${Date.now().toString(36)}${++midSeq}`;
  const payload = (...messaging: Record<string, unknown>[]) =>
    JSON.stringify({ object: 'instagram', entry: [{ id: igUserId, time: Date.now(), messaging }] });
  const post = (body: string, headers: Record<string, string> = { 'x-hub-signature-256': sign(body) }) =>
    client(base).post('/webhooks/instagram', body, { 'content-type': 'application/json', ...headers });
  const authorize = async () => {
    const r = await s.admin.api.post(`${s.base}/instagram/authorization`, {});
    expect(r.status).toBe(200);
    return r.body as { success: boolean; url: string };
  };
  const conversationOf = (m: string) =>
    until(
      async () => {
        const res = await s.admin.api.get(`${s.base}/conversations?status=all&inbox_id=${inboxId}`);
        for (const c of res.body.data.payload as any[]) if ((await messagesOf(s, c.id)).some((x) => x.source_id === m)) return c;
        return undefined;
      },
      { what: `the conversation of ${m}` },
    );
  const sends = () => graph.requests.filter((r) => r.method === 'POST' && r.path === `/v22.0/${igUserId}/messages`);

  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    oauth = await startFakeProvider();
    graph = await startFakeProvider();
    oauth.on('POST', /^\/oauth\/access_token$/, (req) =>
      req.form.get('code') === 'good-code' || req.form.get('code') === 'again-code'
        ? { json: { access_token: SHORT, user_id: Number(igUserId), permissions: 'instagram_business_basic' } }
        : { status: 400, json: { error_type: 'OAuthException', code: 400, error_message: 'Invalid authorization code' } },
    );
    graph.on('GET', /^\/access_token$/, () => ({ json: { access_token: LONG, token_type: 'bearer', expires_in: longLivedIn } }));
    graph.on('GET', /^\/refresh_access_token$/, () => ({ json: { access_token: FRESH, token_type: 'bearer', expires_in: 5_184_000 } }));
    graph.on('GET', /^\/v22\.0\/me$/, () => ({
      json: { id: '9000', username: 'acme.shop', user_id: igUserId, name: 'Acme', account_type: 'BUSINESS' },
    }));
    graph.on('POST', /^\/v22\.0\/\d+\/subscribed_apps$/, () => ({ json: { success: true } }));
    graph.on('GET', /^\/v22\.0\/\d+$/, () => ({ json: { name: 'Mira P', username: 'mira.p' } }));
    graph.on('POST', /^\/v22\.0\/\d+\/messages$/, () => refusal ?? { json: { recipient_id: '1', message_id: `aWdLOGIN${++sent}` } });
    restoreEnv = overrideEnv({
      INSTAGRAM_APP_ID: APP_ID,
      INSTAGRAM_APP_SECRET: APP_SECRET,
      INSTAGRAM_API_BASE_URL: oauth.url,
      INSTAGRAM_GRAPH_BASE_URL: graph.url,
      FB_APP_SECRET: FB_SECRET,
      FRONTEND_URL: FRONTEND,
      ENABLE_INSTAGRAM_CHANNEL_HUMAN_AGENT: undefined,
    });
    s = await seedAccount();
    hook = await startReceiver();
    const wh = await s.admin.api.post(`${s.base}/webhooks`, { url: hook.url, subscriptions: ['message_created', 'message_updated'] });
    expect(wh.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    restoreEnv?.();
    await oauth?.close();
    await graph?.close();
    await hook?.close();
  });

  it('answers the authorization URL; the callback creates the inbox and redirects as Chatwoot; a bad state or a refused code stores nothing', async () => {
    const agent = await s.agent.api.post(`${s.base}/instagram/authorization`, {});
    expect(agent.status).toBe(403);
    const a = await authorize();
    expect(a.success).toBe(true);
    const url = new URL(a.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${oauth.url}/oauth/authorize`);
    expect(Object.fromEntries([...url.searchParams].filter(([k]) => k !== 'state'))).toEqual({
      client_id: APP_ID,
      enable_fb_login: '0',
      force_authentication: '1',
      redirect_uri: `${FRONTEND}/instagram/callback`,
      response_type: 'code',
      scope: 'instagram_business_basic,instagram_business_manage_messages',
    });
    const state = url.searchParams.get('state') ?? '';

    const forged = await client(base).get(`/instagram/callback?code=good-code&state=${encodeURIComponent(forgedJwt(state))}`);
    expect(forged.status).toBe(400);
    const refused = await client(base).get(`/instagram/callback?code=bad-code&state=${encodeURIComponent(state)}`);
    expect(refused.status).toBe(302);
    const errorPage = new URL(refused.headers.get('location') ?? '');
    expect(errorPage.pathname).toBe(`/app/accounts/${s.accountId}/settings/inboxes/new/instagram`);
    expect(errorPage.searchParams.get('error_message')).toBe('Invalid authorization code');
    const cancelled = await client(base).get(
      `/instagram/callback?error=access_denied&error_description=${encodeURIComponent('The user denied')}&state=${encodeURIComponent(state)}`,
    );
    expect(new URL(cancelled.headers.get('location') ?? '').searchParams.get('error_type')).toBe('access_denied');
    const before = await s.admin.api.get(`${s.base}/inboxes`);
    expect(before.body.payload.filter((i: any) => i.channel_type === 'Channel::Instagram')).toHaveLength(0);

    const ok = await client(base).get(`/instagram/callback?code=good-code&state=${encodeURIComponent(state)}`);
    expect(ok.status).toBe(302);
    const [exchange] = await oauth.waitFor((r) => r.form.get('code') === 'good-code');
    expect(Object.fromEntries(exchange.form)).toEqual({
      client_id: APP_ID,
      client_secret: APP_SECRET,
      code: 'good-code',
      grant_type: 'authorization_code',
      redirect_uri: `${FRONTEND}/instagram/callback`,
    });
    const long = graph.requests.find((r) => r.path === '/access_token');
    expect(Object.fromEntries(long?.query ?? [])).toEqual({
      grant_type: 'ig_exchange_token',
      client_secret: APP_SECRET,
      access_token: SHORT,
      client_id: APP_ID,
    });
    const inboxes = (await s.admin.api.get(`${s.base}/inboxes`)).body.payload.filter((i: any) => i.channel_type === 'Channel::Instagram');
    expect(inboxes).toHaveLength(1);
    inboxId = inboxes[0].id;
    expect(inboxes[0]).toMatchObject({ name: 'acme.shop', instagram_id: igUserId, reauthorization_required: false });
    expect(ok.headers.get('location')).toBe(`${FRONTEND}/app/accounts/${s.accountId}/settings/inboxes/new/${inboxId}/agents`);
    const [sub] = await graph.waitFor((r) => r.path === `/v22.0/${igUserId}/subscribed_apps`);
    expect(sub.query.get('subscribed_fields')).toBe('messages,message_reactions,messaging_seen');
    expect(sub.query.get('access_token')).toBe(LONG);
    // The token is sealed at rest.
    const stored = await db().send(new GetCommand({ TableName: tableName(), Key: keys.inbox(s.accountId, inboxId) }));
    expect(typeof stored.Item?.access_token).toBe('string');
    expect(stored.Item?.access_token).not.toContain(LONG);
  });

  it('stores the account’s signed webhooks in the inbox; refuses another app’s signature and another object', async () => {
    const who = igsid();
    const text = { sender: { id: who }, recipient: { id: igUserId }, timestamp: Date.now(), message: { mid: mid(), text: 'hello shop' } };
    const body = payload(text);
    expect((await post(body, { 'x-hub-signature-256': sign(body, FB_SECRET) })).status).toBe(401);
    const page = JSON.stringify({ object: 'page', entry: [{ id: igUserId, messaging: [] }] });
    expect((await post(page, { 'x-hub-signature-256': sign(page) })).status).toBe(422);
    const first = await post(body);
    expect(first.status).toBe(200);
    expect(first.text).toBe('ok');
    await post(body);
    const c = await conversationOf(text.message.mid);
    expect(c.inbox_id).toBe(inboxId);
    expect(c.meta.sender.name).toBe('Mira P');
    expect(c.additional_attributes?.type).toBeUndefined();
    expect((await messagesOf(s, c.id)).filter((m) => m.source_id === text.message.mid)).toHaveLength(1);
    // The account webhook's delivery comes from the pipeline, after the message is stored.
    await until(() => deliveries(hook, 'message_created', (j) => j.source_id === text.message.mid)[0], {
      what: 'the message_created delivery',
    });
    // The profile read used the token, refreshed first (it expires within ten days), and the new one was kept.
    const refresh = graph.requests.filter((r) => r.path === '/refresh_access_token');
    expect(refresh).toHaveLength(1);
    expect(Object.fromEntries(refresh[0].query)).toEqual({ grant_type: 'ig_refresh_token', access_token: LONG });
    const profile = graph.requests.find((r) => r.path === `/v22.0/${who}`);
    expect(profile?.query.get('access_token')).toBe(FRESH);
  });

  it('replies form-encoded to /v22.0/{ig id}/messages; HUMAN_AGENT when the installation says so; a read receipt reads every earlier reply', async () => {
    const who = igsid();
    const hi = { sender: { id: who }, recipient: { id: igUserId }, timestamp: Date.now(), message: { mid: mid(), text: 'hi' } };
    await post(payload(hi));
    const c = await conversationOf(hi.message.mid);
    const one = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'Hello **Mira**' });
    expect(one.status).toBe(200);
    const [req] = await graph.waitFor((x) => sends().includes(x) && x.form.get('recipient[id]') === who);
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(req.form)).toEqual({ 'recipient[id]': who, 'message[text]': 'Hello Mira' });
    expect(req.query.get('access_token')).toBe(FRESH);
    expect(graph.requests.filter((r) => r.path === '/refresh_access_token')).toHaveLength(1);
    const first = await untilState(
      async () => (await messagesOf(s, c.id)).find((m) => m.id === one.body.id),
      (m) => typeof m?.source_id === 'string',
    );

    // An image with a caption: the attachment first (its signed link), then the text, as Chatwoot sends them.
    const upload = new FormData();
    upload.append('content', 'the catalogue');
    upload.append('attachments[]', new Blob([PNG], { type: 'image/png' }), 'catalogue.png');
    const pic = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, upload);
    expect(pic.status).toBe(200);
    await graph.waitFor((x) => sends().includes(x) && x.form.get('message[text]') === 'the catalogue');
    const [image, caption] = sends()
      .filter((x) => x.form.get('recipient[id]') === who)
      .slice(-2);
    expect([...image.form.keys()]).toEqual(['recipient[id]', 'message[attachment][type]', 'message[attachment][payload][url]']);
    expect(image.form.get('message[attachment][type]')).toBe('image');
    const link = await fetch(image.form.get('message[attachment][payload][url]') ?? '');
    expect(Buffer.from(await link.arrayBuffer()).equals(PNG)).toBe(true);
    expect(Object.fromEntries(caption.form)).toEqual({ 'recipient[id]': who, 'message[text]': 'the catalogue' });

    const restore = overrideEnv({ ENABLE_INSTAGRAM_CHANNEL_HUMAN_AGENT: 'true' });
    try {
      const two = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'Still there?' });
      const [tagged] = await graph.waitFor((x) => sends().includes(x) && x.form.get('message[text]') === 'Still there?');
      expect(Object.fromEntries(tagged.form)).toEqual({
        'recipient[id]': who,
        'message[text]': 'Still there?',
        messaging_type: 'MESSAGE_TAG',
        tag: 'HUMAN_AGENT',
      });
      const second = await untilState(
        async () => (await messagesOf(s, c.id)).find((m) => m.id === two.body.id),
        (m) => typeof m?.source_id === 'string',
      );
      // Read up to the second reply: both are read.
      await post(payload({ sender: { id: who }, recipient: { id: igUserId }, timestamp: Date.now(), read: { mid: second.source_id } }));
      await untilState(
        async () => (await messagesOf(s, c.id)).filter((m) => m.id === one.body.id || m.id === two.body.id),
        (ms) => ms.length === 2 && ms.every((m) => m.status === 'read'),
      );
      expect((await messageBySource(s, c.id, first.source_id)).status).toBe('read');
    } finally {
      restore();
    }

    refusal = { status: 400, json: { error: { message: 'Invalid OAuth access token', type: 'OAuthException', code: 190 } } };
    const bad = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'one more' });
    const failed = await untilState(
      async () => (await messagesOf(s, c.id)).find((m) => m.id === bad.body.id),
      (m) => m.status === 'failed',
    );
    expect(failed.content_attributes.external_error).toBe('190 - Invalid OAuth access token');
    refusal = undefined;
    const inbox = await s.admin.api.get(`${s.base}/inboxes/${inboxId}`);
    expect(inbox.body.reauthorization_required).toBe(true);
  });

  it('a second login reauthorizes the same inbox and sends the browser to its settings', async () => {
    longLivedIn = 60 * 24 * 3600;
    const { url } = await authorize();
    const state = new URL(url).searchParams.get('state') ?? '';
    const again = await client(base).get(`/instagram/callback?code=again-code&state=${encodeURIComponent(state)}`);
    expect(again.status).toBe(302);
    expect(again.headers.get('location')).toBe(`${FRONTEND}/app/accounts/${s.accountId}/settings/inboxes/${inboxId}`);
    const inboxes = (await s.admin.api.get(`${s.base}/inboxes`)).body.payload.filter((i: any) => i.channel_type === 'Channel::Instagram');
    expect(inboxes).toHaveLength(1);
    expect(inboxes[0]).toMatchObject({ id: inboxId, reauthorization_required: false });
    // Another account cannot take the same Instagram account.
    const other = await seedAccount();
    const r = await other.admin.api.post(`${other.base}/instagram/authorization`, {});
    const otherState = new URL(r.body.url).searchParams.get('state') ?? '';
    const taken = await client(base).get(`/instagram/callback?code=again-code&state=${encodeURIComponent(otherState)}`);
    expect(taken.status).toBe(302);
    expect(new URL(taken.headers.get('location') ?? '').pathname).toBe(`/app/accounts/${other.accountId}/settings/inboxes/new/instagram`);
    const theirs = (await other.admin.api.get(`${other.base}/inboxes`)).body.payload;
    expect(theirs).toHaveLength(0);
  });
});
