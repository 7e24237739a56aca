import { createHmac, randomInt } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSealed } from '#shared/crypto/tokens.ts';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { overrideEnv } from '../../support/env.ts';
import { PNG, startFakeProvider, type FakeProvider } from '../../support/providers.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { client, expectErrorBody, runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { until, untilState } from '../../support/until.ts';

// Twilio SMS and Twilio WhatsApp end to end against a fake Twilio on 127.0.0.1: inboxes connected with good and bad
// credentials (our callback set on the number), Twilio's documented form-encoded webhooks posted with a valid
// X-Twilio-Signature (a bad or missing one is 401 and stores nothing), replies with Chatwoot's form, statuses.

const SID = `AC${'a1'.repeat(16)}`;
const TOKEN = 'twilio-auth-token';

const signature = (url: string, params: Record<string, string>, token = TOKEN) =>
  createHmac('sha1', token)
    .update(
      url +
        Object.keys(params)
          .sort()
          .map((k) => k + params[k])
          .join(''),
    )
    .digest('base64');

/** Content API resources (`GET /v1/Content`'s `contents`). */
const content = (sid: string, friendly_name: string, types: Record<string, unknown>) => ({
  sid,
  account_sid: SID,
  friendly_name,
  language: 'en',
  variables: { '1': 'name' },
  types,
  url: `https://content.twilio.com/v1/Content/${sid}`,
  date_created: '2025-03-01T09:00:00Z',
  date_updated: '2025-03-02T09:00:00Z',
  links: {},
});
const contents = [
  content('HXorder', 'order_update', { 'twilio/text': { body: 'Hi {{1}}, your order shipped' } }),
  content('HXpromo', 'summer_promo', { 'twilio/media': { body: 'Deals for {{1}}', media: ['https://x.example/s.png'] } }),
];

describe('Twilio channel', () => {
  let twilio: FakeProvider;
  let hook: Receiver;
  let s: SeededAccount;
  let base: string;
  let restoreEnv: () => void;
  let sent = 0;
  let smsNumber: string;
  let smsInbox: any;

  const post = (path: string, params: Record<string, string>, sign: string | null = signature(`${base}${path}`, params)) =>
    client(base).post(path, new URLSearchParams(params).toString(), {
      'content-type': 'application/x-www-form-urlencoded',
      ...(sign ? { 'x-twilio-signature': sign } : {}),
    });
  const messagesOf = async (id: number) => (await s.admin.api.get(`${s.base}/conversations/${id}/messages`)).body.payload as any[];
  const conversationOf = (inboxId: number, source: string) =>
    until(
      async () => {
        const list = await s.admin.api.get(`${s.base}/conversations?inbox_id=${inboxId}&status=all`);
        return (list.body.data.payload as any[]).find(
          (c) =>
            c.messages?.[0]?.conversation?.contact_inbox?.source_id === source ||
            c.meta.sender.phone_number === source.replace(/^whatsapp:/, ''),
        );
      },
      { what: `a conversation of ${source}` },
    );

  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    twilio = await startFakeProvider();
    const authorized = (h: string | string[] | undefined) => h === `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`;
    twilio.on('GET', /^\/2010-04-01\/Accounts\/\w+\/Messages\.json$/, (req) =>
      authorized(req.headers.authorization)
        ? { json: { messages: [], page_size: 1 } }
        : {
            status: 401,
            json: { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 },
          },
    );
    twilio.on('GET', /IncomingPhoneNumbers\.json$/, () => ({
      json: { incoming_phone_numbers: [{ sid: 'PN123', phone_number: smsNumber }] },
    }));
    twilio.on('POST', /IncomingPhoneNumbers\/PN123\.json$/, () => ({ json: { sid: 'PN123' } }));
    twilio.on('POST', /^\/v1\/Services\/MG\w+$/, () => ({ json: { sid: 'MG' } }));
    // Media of an account without HTTP auth on its files, behind a host that refuses credentials it does not know.
    twilio.on('GET', /^\/public-media\//, (req) =>
      req.headers.authorization ? { status: 401 } : { body: PNG, headers: { 'content-type': 'image/png' } },
    );
    twilio.on('GET', /^\/media\//, (req) =>
      authorized(req.headers.authorization) ? { body: PNG, headers: { 'content-type': 'image/png' } } : { status: 401 },
    );
    twilio.on('POST', /^\/2010-04-01\/Accounts\/\w+\/Messages\.json$/, (req) =>
      req.form.get('Body') === 'refuse me'
        ? { status: 400, json: { code: 21211, message: "The 'To' number is not a valid phone number.", status: 400 } }
        : { status: 201, json: { sid: `SM${String(++sent).padStart(32, '0')}`, status: 'queued' } },
    );
    // Twilio's Content API (its own host: TWILIO_CONTENT_BASE_URL): two pages; the next page's URL names Twilio's real
    // host, and is asked of the configured one.
    twilio.on('GET', /^\/v1\/Content$/, (req) => {
      if (!authorized(req.headers.authorization)) return { status: 401, json: { code: 20003, message: 'Authenticate', status: 401 } };
      const second = req.query.get('PageToken') === 'PT1';
      return {
        json: {
          contents: second ? contents.slice(1) : contents.slice(0, 1),
          meta: {
            page: second ? 1 : 0,
            page_size: Number(req.query.get('PageSize')),
            key: 'contents',
            next_page_url: second ? null : 'https://content.twilio.com/v1/Content?PageSize=1000&Page=1&PageToken=PT1',
          },
        },
      };
    });
    restoreEnv = overrideEnv({ TWILIO_API_BASE_URL: twilio.url, TWILIO_CONTENT_BASE_URL: twilio.url });
    s = await seedAccount();
    hook = await startReceiver();
    await s.admin.api.post(`${s.base}/webhooks`, { url: hook.url, subscriptions: ['message_created', 'message_updated'] });
    smsNumber = `+1557${randomInt(1_000_000, 9_999_999)}`;
  }, 120_000);

  afterAll(async () => {
    restoreEnv?.();
    await twilio?.close();
    await hook?.close();
  });

  it('refuses bad credentials with 422 and Twilio’s text; connects SMS with good ones, setting our callback on the number', async () => {
    const bad = await s.admin.api.post(`${s.base}/channels/twilio_channel`, {
      twilio_channel: { name: 'SMS', medium: 'sms', account_sid: SID, auth_token: 'wrong', phone_number: smsNumber },
    });
    expect(expectErrorBody(bad, 422).description).toBe('Authenticate');
    expect(bad.body.error).toBe('Authenticate');
    const res = await s.admin.api.post(`${s.base}/channels/twilio_channel`, {
      twilio_channel: { name: 'SMS', medium: 'sms', account_sid: SID, auth_token: TOKEN, phone_number: smsNumber },
    });
    expect(res.status).toBe(200);
    smsInbox = res.body;
    expect(res.body).toMatchObject({
      channel_type: 'Channel::TwilioSms',
      name: 'SMS',
      medium: 'sms',
      phone_number: smsNumber,
      messaging_service_sid: null,
      callback_webhook_url: `${base}/twilio/callback`,
      auth_token: TOKEN,
      account_sid: SID,
      content_templates: { templates: [] },
    });
    const set = twilio.requests.find((r) => r.path.endsWith('/IncomingPhoneNumbers/PN123.json'))!;
    expect(Object.fromEntries(set.form)).toEqual({ SmsUrl: `${base}/twilio/callback`, SmsMethod: 'POST' });
    const raw = (await db().send(new GetCommand({ TableName: tableName(), Key: keys.inbox(s.accountId, res.body.id) }))).Item!;
    expect(isSealed(String(raw.auth_token))).toBe(true);
    // Agents see no credentials; the number is taken.
    const again = await s.admin.api.post(`${s.base}/channels/twilio_channel`, {
      twilio_channel: { name: 'Again', medium: 'sms', account_sid: SID, auth_token: TOKEN, phone_number: smsNumber },
    });
    expect(again.status).toBe(422);
    expect(
      expectErrorBody(
        await s.admin.api.post(`${s.base}/channels/twilio_channel`, { twilio_channel: { name: 'x', account_sid: SID, auth_token: TOKEN } }),
        422,
      ),
    ).toBeTruthy();
  });

  it('stores an incoming SMS (with its media) once, answers 204; a bad or missing signature is 401 and stores nothing', async () => {
    const from = `+1558${randomInt(1_000_000, 9_999_999)}`;
    const msg = {
      ToCountry: 'US',
      ToState: 'CA',
      SmsMessageSid: 'SM1',
      NumMedia: '1',
      ToCity: '',
      FromZip: '94105',
      SmsSid: `SMin${randomInt(1e9)}`,
      FromState: 'CA',
      SmsStatus: 'received',
      FromCity: 'SAN FRANCISCO',
      Body: 'Is my order on its way?',
      FromCountry: 'US',
      To: smsNumber,
      MessagingServiceSid: '',
      ToZip: '',
      NumSegments: '1',
      MessageSid: '',
      AccountSid: SID,
      From: from,
      MediaUrl0: `${twilio.url}/media/ME1`,
      MediaContentType0: 'image/png',
      ApiVersion: '2010-04-01',
    };
    msg.MessageSid = msg.SmsSid;
    delete (msg as Partial<typeof msg>).MessagingServiceSid;
    const forged = await post(
      '/twilio/callback',
      { ...msg, SmsSid: 'SMforged', MessageSid: 'SMforged', Body: 'forged' },
      'bm90IGEgc2lnbmF0dXJl',
    );
    expect(forged.status).toBe(401);
    expect((await post('/twilio/callback', { ...msg, SmsSid: 'SMforged2', MessageSid: 'SMforged2' }, null)).status).toBe(401);
    const first = await post('/twilio/callback', msg);
    expect(first.status).toBe(204);
    expect((await post('/twilio/callback', msg)).status).toBe(204);
    const c = await conversationOf(smsInbox.id, from);
    expect(c.additional_attributes).toMatchObject({ from_zip_code: '94105', from_country: 'US', from_state: 'CA' });
    const m = await untilState(
      () => messagesOf(c.id),
      (ms) => ms.some((x) => x.source_id === msg.SmsSid),
    ).then((ms) => ms.find((x) => x.source_id === msg.SmsSid));
    expect(m).toMatchObject({
      content: 'Is my order on its way?',
      message_type: 0,
      attachments: [{ file_type: 'image', file_size: PNG.length }],
    });
    const probe = `SMin${randomInt(1e9)}`;
    await post('/twilio/callback', {
      ...msg,
      SmsSid: probe,
      MessageSid: probe,
      Body: 'probe',
      NumMedia: '0',
      MediaUrl0: '',
      MediaContentType0: '',
    });
    await untilState(
      () => messagesOf(c.id),
      (ms) => ms.some((x) => x.source_id === probe),
    );
    const all = await messagesOf(c.id);
    expect(all.filter((x) => x.source_id === msg.SmsSid)).toHaveLength(1);
    expect(all.some((x) => String(x.source_id).startsWith('SMforged'))).toBe(false);
  });

  it('downloads media refused with the credentials once more without them (public media), stored once', async () => {
    const from = `+1559${randomInt(1_000_000, 9_999_999)}`;
    const sid = `SMp${randomInt(1e9)}`;
    const msg = {
      SmsSid: sid,
      MessageSid: sid,
      AccountSid: SID,
      From: from,
      To: smsNumber,
      Body: 'public picture',
      NumMedia: '1',
      MediaUrl0: `${twilio.url}/public-media/ME2`,
      MediaContentType0: 'image/png',
    };
    expect((await post('/twilio/callback', msg)).status).toBe(204);
    const c = await conversationOf(smsInbox.id, from);
    const m = await untilState(
      () => messagesOf(c.id),
      (ms) => ms.some((x) => x.source_id === sid),
    ).then((ms) => ms.find((x) => x.source_id === sid));
    expect(m).toMatchObject({ content: 'public picture', attachments: [{ file_type: 'image', file_size: PNG.length }] });
    const asked = twilio.requests.filter((r) => r.path === '/public-media/ME2');
    expect(asked.map((r) => !!r.headers.authorization)).toEqual([true, false]);
  });

  it('checks the signature over the exact URL Twilio called, its query string as sent', async () => {
    const from = `+1559${randomInt(1_000_000, 9_999_999)}`;
    const sid = `SMq${randomInt(1e9)}`;
    const msg = { SmsSid: sid, MessageSid: sid, AccountSid: SID, From: from, To: smsNumber, Body: 'with a query', NumMedia: '0' };
    // Encoded as a browser or Twilio writes it (%20, a repeated name): a string rebuilt from parsed values differs.
    const path = '/twilio/callback?tag=spring%20sale&x=1&x=2';
    expect((await post(path, msg)).status).toBe(204);
    const c = await conversationOf(smsInbox.id, from);
    await untilState(
      () => messagesOf(c.id),
      (ms) => ms.some((x) => x.source_id === sid && x.content === 'with a query'),
    );
    // Signed over another query than the one sent: refused.
    const other = { ...msg, SmsSid: `${sid}b`, MessageSid: `${sid}b` };
    expect((await post(path, other, signature(`${base}/twilio/callback?tag=spring+sale&x=2`, other))).status).toBe(401);
  });

  it('sends a reply with Chatwoot’s form, saves the sid, applies delivery statuses; a Twilio 400 fails it with Twilio’s text', async () => {
    const from = `+1559${randomInt(1_000_000, 9_999_999)}`;
    const sid = `SMin${randomInt(1e9)}`;
    await post('/twilio/callback', {
      SmsSid: sid,
      MessageSid: sid,
      AccountSid: SID,
      From: from,
      To: smsNumber,
      Body: 'hello',
      NumMedia: '0',
    });
    const c = await conversationOf(smsInbox.id, from);
    const reply = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'Yes, **today**' });
    const [req] = await twilio.waitFor((r) => r.method === 'POST' && r.path.endsWith('/Messages.json') && r.form.get('To') === from);
    expect(req.path).toBe(`/2010-04-01/Accounts/${SID}/Messages.json`);
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`);
    expect(Object.fromEntries(req.form)).toEqual({
      From: smsNumber,
      To: from,
      Body: 'Yes, today',
      StatusCallback: `${base}/twilio/delivery_status`,
    });
    const saved = await untilState(
      () => messagesOf(c.id),
      (ms) => !!ms.find((m) => m.id === reply.body.id)?.source_id,
    ).then((ms) => ms.find((m) => m.id === reply.body.id));
    const status = (MessageStatus: string, extra: Record<string, string> = {}) =>
      post('/twilio/delivery_status', {
        MessageSid: saved.source_id,
        SmsSid: saved.source_id,
        MessageStatus,
        AccountSid: SID,
        From: smsNumber,
        To: from,
        ...extra,
      });
    expect((await status('sent')).status).toBe(204);
    await status('delivered');
    await untilState(
      () => messagesOf(c.id),
      (ms) => ms.find((m) => m.id === reply.body.id)?.status === 'delivered',
    );
    await until(() => hook.received.some((r) => r.json?.event === 'message_updated' && r.json.id === reply.body.id));

    const refused = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'refuse me' });
    const failed = await untilState(
      () => messagesOf(c.id),
      (ms) => ms.find((m) => m.id === refused.body.id)?.status === 'failed',
    ).then((ms) => ms.find((m) => m.id === refused.body.id));
    expect(failed.content_attributes.external_error).toBe("The 'To' number is not a valid phone number.");
  });

  it('starts an outbound conversation from the API with the contact’s number as source id, and sends to it', async () => {
    const phone = `+1563${randomInt(1_000_000, 9_999_999)}`;
    const contact = await s.admin.api.post(`${s.base}/contacts`, { name: 'Out', phone_number: phone });
    const conv = await s.admin.api.post(`${s.base}/conversations`, {
      inbox_id: smsInbox.id,
      contact_id: contact.body.payload.contact.id,
      message: { content: 'Your table is ready' },
    });
    expect(conv.status).toBe(200);
    const [req] = await twilio.waitFor((r) => r.method === 'POST' && r.form.get('To') === phone);
    expect(req.form.get('Body')).toBe('Your table is ready');
  });

  it('connects a WhatsApp medium by messaging service; its contact is whatsapp:+…, an undelivered status fails the message with the error code', async () => {
    const service = `MG${randomInt(1e9)}${'0'.repeat(20)}`.slice(0, 34);
    const res = await s.admin.api.post(`${s.base}/channels/twilio_channel`, {
      name: 'WA',
      medium: 'whatsapp',
      account_sid: SID,
      auth_token: TOKEN,
      messaging_service_sid: service,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ medium: 'whatsapp', messaging_service_sid: service, phone_number: null });
    const from = `whatsapp:+5511${randomInt(10_000_000, 99_999_999)}`;
    const sid = `SMwa${randomInt(1e9)}`;
    await post('/twilio/callback', {
      SmsSid: sid,
      MessageSid: sid,
      AccountSid: SID,
      MessagingServiceSid: service,
      From: from,
      To: 'whatsapp:+15550009999',
      Body: 'Oi',
      ProfileName: 'Lia',
      NumMedia: '0',
      WaId: from.slice(10),
    });
    const c = await until(async () => {
      const list = await s.admin.api.get(`${s.base}/conversations?inbox_id=${res.body.id}&status=all`);
      return list.body.data.payload[0];
    });
    expect(c.meta.sender).toMatchObject({ name: 'Lia', phone_number: from.slice(9) });
    const reply = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'Olá _Lia_' });
    const [req] = await twilio.waitFor((r) => r.method === 'POST' && r.form.get('To') === from);
    expect(Object.fromEntries(req.form)).toEqual({
      MessagingServiceSid: service,
      To: from,
      Body: 'Olá _Lia_',
      StatusCallback: `${base}/twilio/delivery_status`,
    });
    const saved = await untilState(
      () => messagesOf(c.id),
      (ms) => !!ms.find((m) => m.id === reply.body.id)?.source_id,
    ).then((ms) => ms.find((m) => m.id === reply.body.id));
    await post('/twilio/delivery_status', {
      MessageSid: saved.source_id,
      MessageStatus: 'undelivered',
      ErrorCode: '63016',
      AccountSid: SID,
      MessagingServiceSid: service,
      From: 'whatsapp:+15550009999',
      To: from,
    });
    const failed = await untilState(
      () => messagesOf(c.id),
      (ms) => ms.find((m) => m.id === reply.body.id)?.status === 'failed',
    );
    expect(failed.find((m) => m.id === reply.body.id).content_attributes.external_error).toBe('Error code: 63016');
  });

  it('syncs a WhatsApp medium’s content templates (every page) on creation and on demand, and sends a template by ContentSid and ContentVariables', async () => {
    const number = `+1415${randomInt(2_000_000, 9_999_999)}`;
    const mark = twilio.requests.length;
    const res = await s.admin.api.post(`${s.base}/channels/twilio_channel`, {
      twilio_channel: { name: 'WA templates', medium: 'whatsapp', account_sid: SID, auth_token: TOKEN, phone_number: number },
    });
    expect(res.status).toBe(200);
    const stored = (c: ReturnType<typeof content>) => ({
      content_sid: c.sid,
      friendly_name: c.friendly_name,
      language: 'en',
      status: 'approved',
      template_type: c.sid === 'HXpromo' ? 'media' : 'text',
      media_type: null,
      variables: { '1': 'name' },
      category: c.sid === 'HXpromo' ? 'marketing' : 'utility',
      body: c.sid === 'HXpromo' ? 'Deals for {{1}}' : 'Hi {{1}}, your order shipped',
      types: c.types,
      created_at: '2025-03-01T09:00:00.000Z',
      updated_at: '2025-03-02T09:00:00.000Z',
    });
    expect(res.body.content_templates).toEqual({ templates: contents.map(stored) });
    const pages = twilio.requests.slice(mark).filter((r) => r.path === '/v1/Content');
    expect(pages.map((r) => r.query.get('PageToken'))).toEqual([null, 'PT1']);
    expect(pages[0].query.get('PageSize')).toBe('1000');

    // A template added in Twilio arrives with the next sync; an SMS inbox has none to sync.
    contents.push(content('HXotp', 'otp_code', { 'twilio/text': { body: 'Your code is {{1}}' } }));
    const sync = await s.admin.api.post(`${s.base}/inboxes/${res.body.id}/sync_templates`);
    expect(sync.status).toBe(200);
    const after = await s.admin.api.get(`${s.base}/inboxes/${res.body.id}`);
    expect(after.body.content_templates.templates.map((t: any) => [t.content_sid, t.category])).toEqual([
      ['HXorder', 'utility'],
      ['HXpromo', 'marketing'],
      ['HXotp', 'authentication'],
    ]);
    expect(expectErrorBody(await s.admin.api.post(`${s.base}/inboxes/${smsInbox.id}/sync_templates`), 422).description).toBe(
      'Template sync is only available for WhatsApp channels',
    );

    // A customer without a profile name is named by the number (international form), then by the name Twilio gives.
    const from = `whatsapp:+1415${randomInt(2_000_000, 9_999_999)}`;
    const digits = from.slice('whatsapp:+1415'.length);
    const inbound = (sid: string, extra: Record<string, string> = {}) =>
      post('/twilio/callback', {
        SmsSid: sid,
        MessageSid: sid,
        AccountSid: SID,
        From: from,
        To: `whatsapp:${number}`,
        Body: 'hi',
        ...extra,
      });
    await inbound(`SMt${randomInt(1e9)}`);
    const c = await conversationOf(res.body.id, from);
    expect(c.meta.sender.name).toBe(`+1 415 ${digits.slice(0, 3)} ${digits.slice(3)}`);
    const named = `SMt${randomInt(1e9)}`;
    await inbound(named, { ProfileName: 'Noor' });
    await untilState(
      () => messagesOf(c.id),
      (ms) => ms.some((m) => m.source_id === named),
    );
    const contact = await s.admin.api.get(`${s.base}/contacts/${c.meta.sender.id}`);
    expect(contact.body.payload.name).toBe('Noor');

    const template = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, {
      content: 'Hi John, your order shipped',
      template_params: { name: 'order_update', language: 'en', processed_params: { '1': 'John' } },
    });
    expect(template.status).toBe(200);
    const [req] = await twilio.waitFor((r) => r.method === 'POST' && r.path.endsWith('/Messages.json') && r.form.get('To') === from);
    expect(Object.fromEntries(req.form)).toEqual({
      From: `whatsapp:${number}`,
      To: from,
      ContentSid: 'HXorder',
      ContentVariables: '{"1":"John"}',
      StatusCallback: `${base}/twilio/delivery_status`,
    });
    await untilState(
      () => messagesOf(c.id),
      (ms) => !!ms.find((m) => m.id === template.body.id)?.source_id,
    );
    // A template the inbox does not have fails, and nothing is sent.
    const before = twilio.requests.length;
    const unknown = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, {
      content: 'x',
      template_params: { name: 'no_such_template', language: 'en' },
    });
    const failed = await untilState(
      () => messagesOf(c.id),
      (ms) => ms.find((m) => m.id === unknown.body.id)?.status === 'failed',
    ).then((ms) => ms.find((m) => m.id === unknown.body.id));
    expect(failed.content_attributes.external_error).toBe('Template not found');
    expect(twilio.requests.slice(before).some((r) => r.method === 'POST' && r.path.endsWith('/Messages.json'))).toBe(false);
  });
});
