import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overrideEnv } from '../../support/env.ts';
import { PNG, startFakeProvider, type FakeProvider, type ProviderRequest } from '../../support/providers.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { client, runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { until, untilState } from '../../support/until.ts';
import { deliveries, messageBySource as bySource, messagesOf as readMessages } from './fixtures.ts';

// LINE through the Messaging API, end to end: LINE's documented webhook events posted to
// /webhooks/line/{line_channel_id} with X-Line-Signature (fake Messaging and data APIs on 127.0.0.1 serve the
// profile and the content) are stored as Chatwoot stores them, announced to an account webhook, once per
// webhookEventId; a bad signature is 401 and stores nothing; agents' replies are pushed with Chatwoot's bodies,
// marked delivered, or failed with LINE's error text.

const SECRET = 'line-channel-secret';
const TOKEN = 'line-channel-access-token';

const sign = (body: string, secret = SECRET) => createHmac('sha256', secret).update(body).digest('base64');

describe('LINE channel', () => {
  let line: FakeProvider;
  let data: FakeProvider;
  let hook: Receiver;
  let s: SeededAccount;
  let restoreEnv: () => void;
  let base: string;
  let inboxId: number;
  let channelId: string;
  let pushed = 0;
  let refuse = new Set<string>();

  const userId = () => `U${randomBytes(16).toString('hex')}`;
  const eventId = () => `01H${randomBytes(12).toString('hex').toUpperCase()}`;
  const messageId = () => String(randomInt(100_000_000_000, 999_999_999_999));

  /** LINE's webhook body with one message event from `user`. */
  const payload = (user: string, message: Record<string, unknown>, id = eventId(), redelivery = false) =>
    JSON.stringify({
      destination: 'Uxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
      events: [
        {
          type: 'message',
          message,
          webhookEventId: id,
          deliveryContext: { isRedelivery: redelivery },
          timestamp: Date.now(),
          source: { type: 'user', userId: user },
          replyToken: randomBytes(16).toString('hex'),
          mode: 'active',
        },
      ],
    });

  const post = (body: string, signature: string | null = sign(body)) =>
    client(base).post(`/webhooks/line/${channelId}`, body, {
      'content-type': 'application/json; charset=utf-8',
      ...(signature !== null ? { 'x-line-signature': signature } : {}),
    });

  const conversationsOf = async () => {
    const res = await s.admin.api.get(`${s.base}/conversations?inbox_id=${inboxId}&status=all`);
    expect(res.status).toBe(200);
    return res.body.data.payload as any[];
  };
  const conversationsOfUser = async (user: string) =>
    (await conversationsOf()).filter((c) => c.meta.sender.additional_attributes?.social_line_user_id === user);
  const conversationOf = (user: string) => until(async () => (await conversationsOfUser(user))[0], { what: `a conversation of ${user}` });
  const messagesOf = (conversationId: number) => readMessages(s, conversationId);
  const messageBySource = (conversationId: number, sourceId: string) => bySource(s, conversationId, sourceId);
  const events = (name: string, match?: (j: any) => boolean) => deliveries(hook, name, match);

  /** The fake's push: refused for the users in `refuse`, else every message sent. */
  const push = (req: ProviderRequest) => {
    if (refuse.has(req.json?.to))
      return {
        status: 400,
        json: { message: 'The request body has 1 error(s)', details: [{ message: 'must be specified', property: 'messages[0].text' }] },
      };
    return { json: { sentMessages: req.json.messages.map(() => ({ id: String(900_000 + ++pushed), quoteToken: 'q' })) } };
  };

  beforeAll(async () => {
    const rt = await runtime();
    base = rt.baseUrl;
    line = await startFakeProvider();
    data = await startFakeProvider();
    line.on('GET', /^\/v2\/bot\/profile\/U\w+$/, (req) =>
      req.headers.authorization === `Bearer ${TOKEN}`
        ? {
            json: {
              displayName: 'Sato Yuki',
              userId: req.path.split('/').pop(),
              language: 'ja',
              pictureUrl: 'https://profile.line-scdn.net/x',
            },
          }
        : { status: 401, json: { message: 'Authentication failed' } },
    );
    line.on('POST', /^\/v2\/bot\/message\/push$/, push);
    data.on('GET', /^\/v2\/bot\/message\/\d+\/content$/, (req) =>
      req.headers.authorization === `Bearer ${TOKEN}` ? { body: PNG, headers: { 'content-type': 'image/png' } } : { status: 401, body: '' },
    );
    restoreEnv = overrideEnv({ LINE_API_BASE_URL: line.url, LINE_DATA_API_BASE_URL: data.url });
    s = await seedAccount();
    hook = await startReceiver();
    const wh = await s.admin.api.post(`${s.base}/webhooks`, {
      url: hook.url,
      subscriptions: ['contact_created', 'conversation_created', 'message_created', 'message_updated'],
    });
    expect(wh.status).toBe(200);
    channelId = String(randomInt(1_000_000_000, 9_999_999_999));
    const inbox = await s.admin.api.post(`${s.base}/inboxes`, {
      name: 'LINE',
      channel: { type: 'line', line_channel_id: channelId, line_channel_secret: SECRET, line_channel_token: TOKEN },
    });
    expect(inbox.status).toBe(200);
    inboxId = inbox.body.id;
    expect(inbox.body.callback_webhook_url).toMatch(new RegExp(`/webhooks/line/${channelId}$`));
  }, 120_000);

  afterAll(async () => {
    restoreEnv?.();
    await line?.close();
    await data?.close();
    await hook?.close();
  });

  it('stores a text from a user named by LINE’s profile, announced to the account webhook; a redelivery creates nothing', async () => {
    const user = userId();
    const id = messageId();
    const ev = eventId();
    const body = payload(user, { type: 'text', id, quoteToken: 'q1', text: 'こんにちは' }, ev);
    const first = await post(body);
    expect(first.status).toBe(200);
    // LINE redelivers with the same webhookEventId, flagged (and a body that differs: the flag).
    expect((await post(payload(user, { type: 'text', id, quoteToken: 'q1', text: 'こんにちは' }, ev, true))).status).toBe(200);
    const c = await conversationOf(user);
    expect(c.meta.sender).toMatchObject({ name: 'Sato Yuki', additional_attributes: { social_line_user_id: user } });
    const m = await messageBySource(c.id, id);
    expect(m).toMatchObject({ content: 'こんにちは', message_type: 0, sender_type: 'Contact' });
    await until(() => events('message_created', (j) => j.source_id === id).length > 0, { what: 'message_created' });
    const next = messageId();
    await post(payload(user, { type: 'text', id: next, text: 'next' }));
    await messageBySource(c.id, next);
    expect((await messagesOf(c.id)).filter((x) => x.source_id === id)).toHaveLength(1);
    expect(events('message_created', (j) => j.source_id === id)).toHaveLength(1);
    expect(line.requests.filter((r) => r.path === `/v2/bot/profile/${user}`)).toHaveLength(1);
  });

  it('refuses a missing or wrong X-Line-Signature with 401 and stores nothing; the console’s empty verify call is 200', async () => {
    const user = userId();
    const body = payload(user, { type: 'text', id: messageId(), text: 'forged' });
    expect((await post(body, null)).status).toBe(401);
    expect((await post(body, sign(body, 'not-the-secret'))).status).toBe(401);
    const verifyCall = JSON.stringify({ destination: 'U0', events: [] });
    expect((await post(verifyCall)).status).toBe(200);
    const genuine = messageId();
    await post(payload(user, { type: 'text', id: genuine, text: 'genuine' }));
    const c = await conversationOf(user);
    await messageBySource(c.id, genuine);
    expect((await messagesOf(c.id)).map((m) => m.content)).toEqual(['genuine']);
  });

  it('stores an image from the data API, a sticker as Chatwoot renders it, and a location', async () => {
    const user = userId();
    const image = messageId();
    await post(payload(user, { type: 'image', id: image, contentProvider: { type: 'line' } }));
    const c = await conversationOf(user);
    const img = await messageBySource(c.id, image);
    expect(img.attachments).toHaveLength(1);
    expect(img.attachments[0]).toMatchObject({ file_type: 'image', file_size: PNG.length });
    expect(data.requests.some((r) => r.path === `/v2/bot/message/${image}/content`)).toBe(true);

    const sticker = messageId();
    await post(payload(user, { type: 'sticker', id: sticker, packageId: '446', stickerId: '1988', stickerResourceType: 'STATIC' }));
    const st = await messageBySource(c.id, sticker);
    expect(st).toMatchObject({
      content: '![sticker-1988](https://stickershop.line-scdn.net/stickershop/v1/sticker/1988/android/sticker.png)',
      content_type: 'sticker',
    });

    const where = messageId();
    await post(
      payload(user, {
        type: 'location',
        id: where,
        title: 'Tokyo Tower',
        address: 'Minato, Tokyo',
        latitude: 35.65858,
        longitude: 139.745433,
      }),
    );
    const loc = await messageBySource(c.id, where);
    expect(loc.attachments[0]).toMatchObject({
      file_type: 'location',
      coordinates_lat: 35.65858,
      coordinates_long: 139.745433,
      fallback_title: 'Tokyo Tower, Minato, Tokyo',
    });
  });

  it('chooses the conversation by lock_to_single_conversation (Chatwoot always takes the first)', async () => {
    const user = userId();
    const first = messageId();
    await post(payload(user, { type: 'text', id: first, text: 'one' }));
    const c = await conversationOf(user);
    await messageBySource(c.id, first);
    expect((await s.admin.api.post(`${s.base}/conversations/${c.id}/toggle_status`, { status: 'resolved' })).status).toBe(200);
    const second = messageId();
    await post(payload(user, { type: 'text', id: second, text: 'two' }));
    const convs = await until(async () => {
      const list = await conversationsOfUser(user);
      return list.length === 2 ? list : undefined;
    });
    const fresh = convs.find((x) => x.id !== c.id);
    await messageBySource(fresh.id, second);

    expect((await s.admin.api.patch(`${s.base}/inboxes/${inboxId}`, { lock_to_single_conversation: true })).status).toBe(200);
    expect((await s.admin.api.post(`${s.base}/conversations/${fresh.id}/toggle_status`, { status: 'resolved' })).status).toBe(200);
    const third = messageId();
    await post(payload(user, { type: 'text', id: third, text: 'three' }));
    await messageBySource(fresh.id, third);
    expect(await conversationsOfUser(user)).toHaveLength(2);
    expect((await s.admin.api.patch(`${s.base}/inboxes/${inboxId}`, { lock_to_single_conversation: false })).status).toBe(200);
  });

  it('pushes a reply with Chatwoot’s body (text, then the image; no null entries), marks it delivered; an input_select as a flex bubble', async () => {
    const user = userId();
    await post(payload(user, { type: 'text', id: messageId(), text: 'hi' }));
    const c = await conversationOf(user);
    const form = new FormData();
    form.append('content', 'Here is **your** receipt');
    form.append('attachments[]', new Blob([PNG], { type: 'image/png' }), 'receipt.png');
    form.append('attachments[]', new Blob([Buffer.from('%PDF-1.4')], { type: 'application/pdf' }), 'terms.pdf');
    const r = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, form);
    expect(r.status).toBe(200);
    const [req] = await line.waitFor((x) => x.path === '/v2/bot/message/push' && x.json?.to === user);
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.json.messages).toHaveLength(2);
    expect(req.json.messages[0]).toEqual({ type: 'text', text: 'Here is your receipt' });
    expect(req.json.messages[1]).toEqual({
      type: 'image',
      originalContentUrl: expect.stringMatching(/^https?:\/\//),
      previewImageUrl: req.json.messages[1].originalContentUrl,
    });
    const sent = await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === r.body.id),
      (m) => m.status === 'delivered',
    );
    expect(sent.source_id).toMatch(/^90\d+$/);
    await until(() => events('message_updated', (j) => j.id === r.body.id).length > 0);

    const select = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, {
      content: 'Pick one',
      content_type: 'input_select',
      content_attributes: { items: [{ title: 'Yes', value: 'yes' }] },
    });
    expect(select.status).toBe(200);
    const [flex] = await line.waitFor(
      (x) => x.path === '/v2/bot/message/push' && x.json?.messages?.[0]?.type === 'flex' && x.json.to === user,
    );
    expect(flex.json.messages).toEqual([
      {
        type: 'flex',
        altText: 'Pick one',
        contents: {
          type: 'bubble',
          body: {
            type: 'box',
            layout: 'vertical',
            contents: [
              { type: 'text', text: 'Pick one', wrap: true },
              { type: 'button', style: 'link', height: 'sm', action: { type: 'message', label: 'Yes', text: 'yes' } },
            ],
          },
        },
      },
    ]);
  });

  it('pushes with a retry key: a push LINE took whose answer was lost is not pushed again on the retry (409 counts as sent)', async () => {
    const user = userId();
    await post(payload(user, { type: 'text', id: messageId(), text: 'hi' }));
    const c = await conversationOf(user);
    // LINE as documented: a key it accepted is not carried out again (409); the first answer is lost (a 500).
    const accepted = new Map<string, string>();
    let carriedOut = 0;
    line.on('POST', /^\/v2\/bot\/message\/push$/, (req) => {
      const key = String(req.headers['x-line-retry-key'] ?? '');
      if (req.json?.to !== user) return push(req);
      if (key && accepted.has(key))
        return { status: 409, json: { message: 'The retry key is already accepted', sentMessages: [{ id: accepted.get(key) }] } };
      carriedOut++;
      const id = String(800_000 + ++pushed);
      if (key) accepted.set(key, id);
      return carriedOut === 1
        ? { status: 500, json: { message: 'An error occurred in the backend' } }
        : { json: { sentMessages: [{ id }] } };
    });
    const r = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'once' });
    expect(r.status).toBe(200);
    const sent = await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === r.body.id),
      (m) => m.status === 'delivered',
      30_000,
    );
    const pushes = line.requests.filter((x) => x.path === '/v2/bot/message/push' && x.json?.to === user);
    expect(pushes.length).toBe(2);
    expect(pushes[0].headers['x-line-retry-key']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(pushes[1].headers['x-line-retry-key']).toBe(pushes[0].headers['x-line-retry-key']);
    expect(carriedOut).toBe(1);
    expect(sent.source_id).toBe([...accepted.values()][0]);
  });

  it('fails a push LINE refuses with Chatwoot’s "<message>, <property>: <message>"', async () => {
    const user = userId();
    await post(payload(user, { type: 'text', id: messageId(), text: 'hi' }));
    const c = await conversationOf(user);
    refuse.add(user);
    const r = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'hello' });
    const failed = await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === r.body.id),
      (m) => m.status === 'failed',
    );
    expect(failed.content_attributes.external_error).toBe('The request body has 1 error(s), messages[0].text: must be specified');
    refuse = new Set();
  });
});
