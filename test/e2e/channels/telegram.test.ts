import { randomInt } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overrideEnv } from '../../support/env.ts';
import { PNG, startFakeProvider, type FakeProvider } from '../../support/providers.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { client, runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { until, untilState } from '../../support/until.ts';
import { deliveries, messageBySource as bySource, messagesOf as readMessages } from './fixtures.ts';

// Telegram through the Bot API, end to end: creating the inbox asks a fake Bot API on 127.0.0.1 for the bot
// (getMe) and registers the webhook with a secret token; Telegram's documented Update payloads posted to
// /webhooks/telegram/{bot id} with that secret are stored as Chatwoot stores them (text, photo, sticker, location,
// an edit), announced to an account webhook, once per message; agents' replies reach the fake with Chatwoot's
// form fields, and Telegram's errors fail them with Chatwoot's text.

describe('Telegram channel', () => {
  let tg: FakeProvider;
  let hook: Receiver;
  let s: SeededAccount;
  let restoreEnv: () => void;
  let base: string;
  let inboxId: number;
  let secret: string;
  const botId = String(randomInt(1_000_000_000, 9_999_999_999));
  const token = `${botId}:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw`;
  let updateSeq = randomInt(100_000_000, 900_000_000);
  let messageSeq = 0;
  let sent = 0;
  let blocked = new Set<string>();

  const user = () => {
    const id = randomInt(100_000_000, 999_999_999);
    return { id, is_bot: false, first_name: 'Ivan', last_name: `P${id % 1000}`, username: `ivan${id}`, language_code: 'en' };
  };
  type User = ReturnType<typeof user>;
  const chatOf = (u: User) => ({ id: u.id, first_name: u.first_name, last_name: u.last_name, username: u.username, type: 'private' });
  const message = (u: User, fields: Record<string, unknown>) => ({
    message_id: ++messageSeq,
    from: u,
    chat: chatOf(u),
    date: Math.floor(Date.now() / 1000),
    ...fields,
  });
  const update = (fields: Record<string, unknown>) => JSON.stringify({ update_id: ++updateSeq, ...fields });

  const post = (body: string, secretToken: string | null = secret, path = botId) =>
    client(base).post(`/webhooks/telegram/${path}`, body, {
      'content-type': 'application/json',
      ...(secretToken !== null ? { 'x-telegram-bot-api-secret-token': secretToken } : {}),
    });

  const conversationsOf = async () => {
    const res = await s.admin.api.get(`${s.base}/conversations?inbox_id=${inboxId}&status=all`);
    expect(res.status).toBe(200);
    return res.body.data.payload as any[];
  };
  const conversationOf = (u: User) =>
    until(async () => (await conversationsOf()).find((c) => c.additional_attributes?.chat_id === u.id), {
      what: `a conversation of ${u.id}`,
    });
  const messagesOf = (conversationId: number) => readMessages(s, conversationId);
  const messageBySource = (conversationId: number, sourceId: string) => bySource(s, conversationId, sourceId);
  const events = (name: string, match?: (j: any) => boolean) => deliveries(hook, name, match);

  beforeAll(async () => {
    const rt = await runtime();
    base = rt.baseUrl;
    tg = await startFakeProvider();
    tg.on('GET', /^\/bot[^/]+\/getMe$/, (req) =>
      req.path === `/bot${token}/getMe`
        ? { json: { ok: true, result: { id: Number(botId), is_bot: true, first_name: 'Acme Support', username: 'acme_support_bot' } } }
        : { status: 401, json: { ok: false, error_code: 401, description: 'Unauthorized' } },
    );
    tg.on('POST', /^\/bot[^/]+\/setWebhook$/, () => ({ json: { ok: true, result: true, description: 'Webhook was set' } }));
    tg.on('GET', /^\/bot[^/]+\/getFile$/, (req) => ({
      json: {
        ok: true,
        result: {
          file_id: req.query.get('file_id'),
          file_unique_id: 'u1',
          file_size: PNG.length,
          file_path: `photos/${req.query.get('file_id')}.png`,
        },
      },
    }));
    tg.on('GET', /^\/file\/bot[^/]+\/photos\//, (req) =>
      req.path.startsWith(`/file/bot${token}/`) ? { body: PNG, headers: { 'content-type': 'image/png' } } : { status: 404, body: '' },
    );
    tg.on('POST', /^\/bot[^/]+\/send(Message|MediaGroup|Document)$/, (req) => {
      if (blocked.has(req.form.get('chat_id') ?? ''))
        return { status: 403, json: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' } };
      const m = { message_id: 5000 + ++sent, chat: { id: Number(req.form.get('chat_id')), type: 'private' }, date: 1 };
      return { json: { ok: true, result: req.path.endsWith('sendMediaGroup') ? [m] : m } };
    });
    restoreEnv = overrideEnv({ TELEGRAM_API_BASE_URL: tg.url });
    s = await seedAccount();
    hook = await startReceiver();
    const wh = await s.admin.api.post(`${s.base}/webhooks`, {
      url: hook.url,
      subscriptions: ['contact_created', 'conversation_created', 'message_created', 'message_updated'],
    });
    expect(wh.status).toBe(200);
    const inbox = await s.admin.api.post(`${s.base}/inboxes`, { name: 'ignored', channel: { type: 'telegram', bot_token: token } });
    expect(inbox.status).toBe(200);
    inboxId = inbox.body.id;
    const [registered] = await tg.waitFor((r) => r.path === `/bot${token}/setWebhook`);
    secret = registered.form.get('secret_token') ?? '';
  }, 120_000);

  afterAll(async () => {
    restoreEnv?.();
    await tg?.close();
    await hook?.close();
  });

  it('names the inbox after the bot and registers the webhook under FRONTEND_URL with a secret token, the bot token in no URL', async () => {
    const inbox = await s.admin.api.get(`${s.base}/inboxes/${inboxId}`);
    expect(inbox.body).toMatchObject({ name: 'acme_support_bot', bot_name: 'acme_support_bot', channel_type: 'Channel::Telegram' });
    const [registered] = tg.requests.filter((r) => r.path === `/bot${token}/setWebhook`);
    expect(registered.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const url = registered.form.get('url') ?? '';
    expect(url).toMatch(new RegExp(`^https?://[^/]+/webhooks/telegram/${botId}$`));
    expect(url).not.toContain(token.split(':')[1]);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{16,256}$/);

    const bad = await s.admin.api.post(`${s.base}/inboxes`, { channel: { type: 'telegram', bot_token: '12345:not-a-real-token' } });
    expect(bad.status).toBe(422);
    expect(bad.body.description).toBe('Bot token invalid token');
    expect(bad.body.errors).toEqual([{ field: 'channel.bot_token', message: 'invalid token', code: 'invalid' }]);
    expect(tg.requests.some((r) => r.path === '/bot12345:not-a-real-token/setWebhook')).toBe(false);
  });

  it('stores a private text as Chatwoot does, announced to the account webhook; a redelivered update creates nothing', async () => {
    const u = user();
    const m = message(u, { text: 'Hello <bot>' });
    const body = update({ message: m });
    const first = await post(body);
    expect(first.status).toBe(200);
    expect((await post(body)).status).toBe(200);
    const c = await conversationOf(u);
    expect(c.additional_attributes).toEqual({ chat_id: u.id, business_connection_id: null });
    expect(c.meta.sender).toMatchObject({
      name: `Ivan ${u.last_name}`,
      additional_attributes: {
        username: u.username,
        language_code: 'en',
        social_telegram_user_id: u.id,
        social_telegram_user_name: u.username,
      },
    });
    const stored = await messageBySource(c.id, String(m.message_id));
    expect(stored).toMatchObject({ content: 'Hello <bot>', message_type: 0, sender_type: 'Contact', status: 'sent' });
    const created = () => events('message_created', (j) => j.conversation?.id === c.id && j.source_id === String(m.message_id));
    const contact = () => events('contact_created', (j) => j.additional_attributes?.social_telegram_user_id === u.id);
    await until(() => created().length > 0 && contact().length > 0, { what: 'message_created and contact_created' });
    expect(created()[0].json).toMatchObject({ message_type: 'incoming', content: 'Hello <bot>', sender: { name: `Ivan ${u.last_name}` } });
    // The same update again, and the path Chatwoot registers (the whole token): still one message.
    await post(body, secret, token);
    const next = message(u, { text: 'second' });
    await post(update({ message: next }));
    await messageBySource(c.id, String(next.message_id));
    expect((await messagesOf(c.id)).filter((x) => x.source_id === String(m.message_id))).toHaveLength(1);
    expect(created()).toHaveLength(1);
    expect(contact()).toHaveLength(1);
  });

  it('refuses an update without the secret token, or with a wrong one, with 401 and stores nothing; a group chat is not stored', async () => {
    const u = user();
    const forged = message(u, { text: 'forged' });
    expect((await post(update({ message: forged }), null)).status).toBe(401);
    expect((await post(update({ message: forged }), 'x'.repeat(43))).status).toBe(401);
    expect((await post(update({ message: forged }), secret, token)).status).toBe(200);
    const c = await conversationOf(u);
    await messageBySource(c.id, String(forged.message_id));
    const other = user();
    const group = { ...message(other, { text: 'in a group' }), chat: { id: -100123, title: 'G', type: 'group' } };
    await post(update({ message: group }));
    const genuine = message(other, { text: 'genuine' });
    await post(update({ message: genuine }));
    const oc = await conversationOf(other);
    await messageBySource(oc.id, String(genuine.message_id));
    expect((await messagesOf(oc.id)).map((x) => x.content)).toEqual(['genuine']);
    expect((await messagesOf(c.id)).map((x) => x.content)).toEqual(['forged']);
  });

  it('downloads a photo and a sticker through getFile, stores a location, a reply, and applies an edit', async () => {
    const u = user();
    const photo = message(u, {
      caption: 'the receipt',
      photo: [
        { file_id: 'small', file_unique_id: 's', file_size: 10, width: 90, height: 90 },
        { file_id: 'large', file_unique_id: 'l', file_size: 99, width: 800, height: 800 },
      ],
    });
    await post(update({ message: photo }));
    const c = await conversationOf(u);
    const p = await messageBySource(c.id, String(photo.message_id));
    expect(p.content).toBe('the receipt');
    expect(p.attachments).toHaveLength(1);
    expect(p.attachments[0]).toMatchObject({ file_type: 'image', file_size: PNG.length });
    expect(tg.requests.some((r) => r.path.endsWith('/getFile') && r.query.get('file_id') === 'large')).toBe(true);
    const file = await fetch(p.attachments[0].data_url);
    expect(Buffer.from(await file.arrayBuffer()).equals(PNG)).toBe(true);

    const sticker = message(u, {
      sticker: {
        file_id: 'sticker',
        file_unique_id: 'st',
        type: 'regular',
        width: 512,
        height: 512,
        is_animated: false,
        is_video: false,
        emoji: '😀',
        thumbnail: { file_id: 'sticker-thumb', file_unique_id: 'stt', width: 128, height: 128 },
      },
    });
    await post(update({ message: sticker }));
    const st = await messageBySource(c.id, String(sticker.message_id));
    expect(st.attachments[0]).toMatchObject({ file_type: 'image' });

    const place = message(u, { location: { latitude: 52.520008, longitude: 13.404954 }, reply_to_message: photo });
    await post(update({ message: place }));
    const loc = await messageBySource(c.id, String(place.message_id));
    expect(loc.attachments[0]).toMatchObject({ file_type: 'location', coordinates_lat: 52.520008, coordinates_long: 13.404954 });
    expect(loc.content_attributes).toMatchObject({ in_reply_to_external_id: String(photo.message_id) });

    const text = message(u, { text: 'wrong spelling' });
    await post(update({ message: text }));
    const before = await messageBySource(c.id, String(text.message_id));
    await post(update({ edited_message: { ...text, text: 'right spelling', edit_date: Math.floor(Date.now() / 1000) } }));
    await untilState(
      async () => (await messagesOf(c.id)).find((m) => m.id === before.id),
      (m) => m.content === 'right spelling',
    );
    await until(() => events('message_updated', (j) => j.id === before.id && j.content === 'right spelling').length === 1);
  });

  it('sends a reply as Chatwoot: Telegram HTML, an inline keyboard for input_select, an image as a media group', async () => {
    const u = user();
    const m = message(u, { text: 'hi' });
    await post(update({ message: m }));
    const c = await conversationOf(u);
    const incoming = await messageBySource(c.id, String(m.message_id));
    const r = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, {
      content: 'Hi **there** & <welcome>',
      content_attributes: { in_reply_to: incoming.id },
    });
    expect(r.status).toBe(200);
    const [req] = await tg.waitFor((x) => x.path === `/bot${token}/sendMessage` && x.form.get('chat_id') === String(u.id));
    expect(Object.fromEntries(req.form)).toEqual({
      chat_id: String(u.id),
      reply_to_message_id: String(m.message_id),
      text: 'Hi <b>there</b> &amp; &lt;welcome&gt;',
      parse_mode: 'HTML',
    });
    const saved = await untilState(
      async () => (await messagesOf(c.id)).find((x) => x.id === r.body.id),
      (x) => typeof x?.source_id === 'string',
    );
    expect(saved.source_id).toMatch(/^50\d\d$/);

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
    expect(select.status).toBe(200);
    const [kb] = await tg.waitFor((x) => x.path.endsWith('/sendMessage') && x.form.get('text') === 'Pick one');
    expect(JSON.parse(kb.form.get('reply_markup') ?? '')).toEqual({
      one_time_keyboard: true,
      inline_keyboard: [[{ text: 'Yes', callback_data: 'yes' }], [{ text: 'No', callback_data: 'no' }]],
    });
    // The button pressed comes back as a callback query: its data is the contact's message.
    const query = { id: `${randomInt(1e9, 9e9)}`, from: u, message: { ...m, message_id: 5000 + sent }, chat_instance: '1', data: 'yes' };
    await post(update({ callback_query: query }));
    expect((await messageBySource(c.id, query.id)).content).toBe('yes');

    const upload = new FormData();
    upload.append('attachments[]', new Blob([PNG], { type: 'image/png' }), 'pic.png');
    const image = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, upload);
    expect(image.status).toBe(200);
    const [group] = await tg.waitFor((x) => x.path === `/bot${token}/sendMediaGroup` && x.form.get('chat_id') === String(u.id));
    const media = JSON.parse(group.form.get('media') ?? '[]');
    expect(media).toHaveLength(1);
    expect(media[0]).toMatchObject({ type: 'photo', media: expect.stringMatching(/^https?:\/\//) });
    expect(tg.requests.filter((x) => x.path.endsWith('/sendMessage') && x.form.get('chat_id') === String(u.id))).toHaveLength(2);

    // A document: its bytes uploaded (multipart) under its name, as Chatwoot uploads it, not a link.
    const pdf = '%PDF-1.4 a small report';
    const doc = new FormData();
    doc.append('attachments[]', new Blob([pdf], { type: 'application/pdf' }), 'report.pdf');
    const sentDoc = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, doc);
    expect(sentDoc.status).toBe(200);
    const [upload2] = await tg.waitFor((x) => x.path === `/bot${token}/sendDocument` && x.body.includes('report.pdf'));
    expect(upload2.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const parts = await new Response(upload2.body, { headers: { 'content-type': String(upload2.headers['content-type']) } }).formData();
    expect(parts.get('chat_id')).toBe(String(u.id));
    const file = parts.get('document') as File;
    expect(file.name).toBe('report.pdf');
    expect(file.type).toBe('application/pdf');
    expect(await file.text()).toBe(pdf);
    await untilState(
      async () => (await messagesOf(c.id)).find((x) => x.id === sentDoc.body.id),
      (x) => typeof x?.source_id === 'string',
    );
  });

  it('a contact’s reply to an agent’s message is linked to it, in its own chat only (Telegram’s ids are per chat)', async () => {
    const [a, b] = [user(), user()];
    for (const u of [a, b]) await post(update({ message: message(u, { text: 'hello' }) }));
    const [ca, cb] = [await conversationOf(a), await conversationOf(b)];
    // Telegram numbers each chat's messages on their own: both agents' messages get the same id.
    const shared = 7000 + randomInt(1, 999);
    const chats = new Set([String(a.id), String(b.id)]);
    tg.on('POST', /^\/bot[^/]+\/sendMessage$/, (req) => {
      const chat = req.form.get('chat_id') ?? '';
      if (blocked.has(chat))
        return { status: 403, json: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' } };
      const id = chats.has(chat) ? shared : 5000 + ++sent;
      return { json: { ok: true, result: { message_id: id, chat: { id: Number(chat), type: 'private' }, date: 1 } } };
    });
    const sentTo = async (c: { id: number }) => {
      const r = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: `for ${c.id}` });
      expect(r.status).toBe(200);
      await untilState(
        async () => (await messagesOf(c.id)).find((x) => x.id === r.body.id),
        (x) => x?.source_id === String(shared),
      );
      return r.body.id as number;
    };
    const [toA, toB] = [await sentTo(ca), await sentTo(cb)];
    const answerOf = async (u: User, c: { id: number }) => {
      const m = message(u, { text: 'yes, that', reply_to_message: { message_id: shared, chat: chatOf(u), date: 1, text: `for ${c.id}` } });
      await post(update({ message: m }));
      return messageBySource(c.id, String(m.message_id));
    };
    expect((await answerOf(a, ca)).content_attributes).toMatchObject({ in_reply_to: toA, in_reply_to_external_id: String(shared) });
    expect((await answerOf(b, cb)).content_attributes).toMatchObject({ in_reply_to: toB, in_reply_to_external_id: String(shared) });
  });

  it('a business chat: the customer’s message in, the owner’s own message as an outgoing echo, replies through the connection', async () => {
    const u = user();
    const owner = { id: 777_000_111, is_bot: false, first_name: 'Owner' };
    const connection = `bc-${randomInt(1e9, 9e9)}`;
    const customerMessage = { ...message(u, { text: 'is the shop open?' }), business_connection_id: connection };
    await post(update({ business_message: customerMessage }));
    const c = await conversationOf(u);
    expect(c.additional_attributes).toEqual({ chat_id: u.id, business_connection_id: connection });
    await messageBySource(c.id, String(customerMessage.message_id));
    const ownerMessage = { ...message(u, { text: 'yes, until 6' }), from: owner, business_connection_id: connection };
    await post(update({ business_message: ownerMessage }));
    const echo = await messageBySource(c.id, String(ownerMessage.message_id));
    expect(echo).toMatchObject({ message_type: 1, content: 'yes, until 6' });
    expect(echo.sender).toBeUndefined();
    const r = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'see you' });
    expect(r.status).toBe(200);
    const [req] = await tg.waitFor((x) => x.path.endsWith('/sendMessage') && x.form.get('text') === 'see you');
    expect(req.form.get('business_connection_id')).toBe(connection);
    expect(req.form.get('chat_id')).toBe(String(u.id));
    // The echo is never sent back.
    expect(tg.requests.some((x) => x.form.get('text') === 'yes, until 6')).toBe(false);
  });

  it('an inbox made before the bot-id entry existed: a change keeping its token registers the webhook and the bot-id path finds it', async () => {
    // Such an inbox has only its token's entry: remove the bot-id one to make it so.
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.channelUnique('TELEGRAM', `bot:${botId}`) }));
    const u = user();
    const lost = message(u, { text: 'anyone there?' });
    expect((await post(update({ message: lost }))).status).toBe(200);
    const registrations = tg.requests.filter((r) => r.path === `/bot${token}/setWebhook`).length;
    const changed = await s.admin.api.patch(`${s.base}/inboxes/${inboxId}`, { channel: { bot_token: token } });
    expect(changed.status).toBe(200);
    const hooks = tg.requests.filter((r) => r.path === `/bot${token}/setWebhook`);
    expect(hooks).toHaveLength(registrations + 1);
    expect(hooks.at(-1)?.form.get('url')).toMatch(new RegExp(`/webhooks/telegram/${botId}$`));
    const found = message(u, { text: 'hello again' });
    await post(update({ message: found }));
    const c = await conversationOf(u);
    expect((await messageBySource(c.id, `${found.message_id}`)).content).toBe('hello again');
    // The update before the change found no inbox: nothing of it was stored.
    expect((await messagesOf(c.id)).some((m) => m.content === 'anyone there?')).toBe(false);
    // A second change keeping the token registers nothing more.
    await s.admin.api.patch(`${s.base}/inboxes/${inboxId}`, { channel: { bot_token: token } });
    expect(tg.requests.filter((r) => r.path === `/bot${token}/setWebhook`)).toHaveLength(registrations + 1);
  });

  it('fails a reply Telegram refuses with Chatwoot’s "<error_code>, <description>"', async () => {
    const u = user();
    await post(update({ message: message(u, { text: 'bye' }) }));
    const c = await conversationOf(u);
    blocked.add(String(u.id));
    const r = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'are you there?' });
    const failed = await untilState(
      async () => (await messagesOf(c.id)).find((x) => x.id === r.body.id),
      (x) => x.status === 'failed',
    );
    expect(failed.content_attributes.external_error).toBe('403, Forbidden: bot was blocked by the user');
    expect(failed.source_id).toBeNull();
    await until(() => events('message_updated', (j) => j.id === r.body.id && j.content_attributes?.external_error).length > 0);
    blocked = new Set();
  });
});
