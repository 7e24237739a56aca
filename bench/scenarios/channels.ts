import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { webhookSecret } from '#shared/channels/telegram/webhook.ts';
import { mailConfig, resetConfig } from '#shared/config.ts';
import type { BenchWorld, Scenarios } from './types.ts';

// Messaging channels (docs/channels.md): the providers' webhooks, as a provider calls them (the bench runs without
// FB_APP_SECRET, so WhatsApp Cloud webhooks are unsigned, as Chatwoot takes them), and the retry of a message.

const A = '/api/v1/accounts/{account_id}';

const ok = async (w: BenchWorld, method: string, path: string, body?: unknown): Promise<any> => {
  const res = await w.account.admin.api.request(method, `${w.account.base}${path}`, body);
  if (res.status !== 200) throw new Error(`bench setup ${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.body;
};

let numbers = 0;
/** A phone number no other inbox of the run holds. */
export const benchPhone = () => `+1555${String(process.pid % 1000).padStart(3, '0')}${String(++numbers).padStart(4, '0')}`;

/** A WhatsApp Cloud inbox (its provider is never called: the bench measures the webhook's own work). */
export async function whatsappInbox(w: BenchWorld) {
  const phone = benchPhone();
  const inbox = await ok(w, 'POST', '/inboxes', {
    name: w.unique('wa'),
    channel: {
      type: 'whatsapp',
      phone_number: phone,
      provider: 'whatsapp_cloud',
      provider_config: { api_key: 'bench-token', phone_number_id: '100000000000001', business_account_id: '200000000000001' },
    },
  });
  return { id: inbox.id as number, phone, verifyToken: inbox.provider_config.webhook_verify_token as string };
}

/** Meta's `messages` webhook for a text from `from`. */
export const whatsappText = (phone: string, from: string, id: string, text: string) =>
  JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '200000000000001',
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: phone.slice(1), phone_number_id: '100000000000001' },
              contacts: [{ profile: { name: 'Bench Customer' }, wa_id: from }],
              messages: [{ from, id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text } }],
            },
            field: 'messages',
          },
        ],
      },
    ],
  });

const TWILIO_SID = `AC${'b2'.repeat(16)}`;
const TWILIO_TOKEN = 'bench-twilio-token';

/** A Twilio SMS inbox on a number of its own (the provider stub takes the credential check). */
async function twilioInbox(w: BenchWorld) {
  const phone = benchPhone();
  const inbox = await ok(w, 'POST', '/channels/twilio_channel', {
    twilio_channel: { name: w.unique('twilio'), medium: 'sms', account_sid: TWILIO_SID, auth_token: TWILIO_TOKEN, phone_number: phone },
  });
  return { id: inbox.id as number, phone };
}

/** Twilio's form and its X-Twilio-Signature over the public URL (FRONTEND_URL: the bench's base URL). */
function twilioRequest(w: BenchWorld, path: string, params: Record<string, string>) {
  const data =
    w.baseUrl +
    path +
    Object.keys(params)
      .sort()
      .map((k) => k + params[k])
      .join('');
  return {
    method: 'POST',
    path,
    body: new URLSearchParams(params).toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': createHmac('sha1', TWILIO_TOKEN).update(data).digest('base64'),
    },
    status: 204,
  };
}

/** A Bandwidth SMS inbox (nothing is called at Bandwidth on creation). */
async function bandwidthInbox(w: BenchWorld) {
  const phone = benchPhone();
  await ok(w, 'POST', '/inboxes', {
    name: w.unique('sms'),
    channel: { type: 'sms', phone_number: phone, provider_config: { account_id: 'a', application_id: 'b', api_key: 'c', api_secret: 'd' } },
  });
  return { phone };
}

let providerApi: Promise<void> | undefined;
const pagesRegistered: string[] = [];
/**
 * Telegram's Bot API and Graph on 127.0.0.1, for making inboxes (getMe names the bot, setWebhook and Graph's
 * subscribed_apps take anything); the runtime (in this process) is pointed at it. Nothing else is called: the bench
 * measures the webhooks and the registration.
 */
const BENCH_IG_ACCOUNT = `1784${process.pid}`;

const fakeProviders = () =>
  (providerApi ??= new Promise<void>((resolve) => {
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      res.writeHead(200, { 'content-type': 'application/json' });
      if (path.endsWith('/getMe')) res.end(JSON.stringify({ ok: true, result: { id: 1, is_bot: true, username: 'bench_bot' } }));
      else if (path === '/oauth/access_token') res.end(JSON.stringify({ access_token: 'bench-user-token', token_type: 'bearer' }));
      // Instagram's login: the long-lived token and the account (one account: the first login creates its inbox, the
      // next ones reauthorize it).
      else if (path === '/access_token')
        res.end(JSON.stringify({ access_token: 'bench-ig-token', token_type: 'bearer', expires_in: 5_184_000 }));
      else if (path === '/v22.0/me') res.end(JSON.stringify({ id: '1', user_id: BENCH_IG_ACCOUNT, username: 'bench.shop' }));
      // The user's pages: every page the bench registered.
      else if (path === '/me/accounts')
        res.end(JSON.stringify({ data: pagesRegistered.map((id) => ({ id, name: 'Bench', access_token: 'bench-page-2' })) }));
      else res.end(JSON.stringify({ ok: true, result: true, success: true }));
    });
    server.unref();
    server.listen(0, '127.0.0.1', () => {
      process.env.TELEGRAM_API_BASE_URL = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      process.env.FACEBOOK_GRAPH_BASE_URL = process.env.TELEGRAM_API_BASE_URL;
      process.env.INSTAGRAM_API_BASE_URL = process.env.TELEGRAM_API_BASE_URL;
      process.env.INSTAGRAM_GRAPH_BASE_URL = process.env.TELEGRAM_API_BASE_URL;
      process.env.INSTAGRAM_APP_ID ??= 'bench-ig-app';
      process.env.INSTAGRAM_APP_SECRET ??= 'bench-ig-secret';
      resetConfig();
      resolve();
    });
  }));

/** A Meta-style request signed (`X-Hub-Signature-256`) by the Instagram app's secret the fake providers set. */
const signedByInstagramApp = (r: { method: string; path: string; body: string }) => ({
  ...r,
  headers: {
    'content-type': 'application/json',
    'x-hub-signature-256': `sha256=${createHmac('sha256', process.env.INSTAGRAM_APP_SECRET ?? '')
      .update(r.body)
      .digest('hex')}`,
  },
});

/** A Telegram inbox and the secret its webhook carries (as the service registered it). */
export async function telegramInbox(w: BenchWorld) {
  await fakeProviders();
  const botId = String(7_000_000_000 + (process.pid % 1000) * 1000 + ++numbers);
  const token = `${botId}:AAH${w.unique('t').replace(/[^\w-]/g, '')}`;
  await ok(w, 'POST', '/inboxes', { channel: { type: 'telegram', bot_token: token } });
  return { botId, secret: webhookSecret(token) };
}

/** Telegram's Update for a private text from `userId`. */
export const telegramText = (updateId: number, userId: number, messageId: number, text: string) =>
  JSON.stringify({
    update_id: updateId,
    message: {
      message_id: messageId,
      from: { id: userId, is_bot: false, first_name: 'Bench', last_name: 'Customer', language_code: 'en' },
      chat: { id: userId, first_name: 'Bench', last_name: 'Customer', type: 'private' },
      date: Math.floor(Date.now() / 1000),
      text,
    },
  });

/** A LINE inbox (no call to LINE when it is made) and its channel secret. */
export async function lineInbox(w: BenchWorld) {
  const channelId = String(1_800_000_000 + (process.pid % 1000) * 1000 + ++numbers);
  const secret = 'bench-line-secret';
  await ok(w, 'POST', '/inboxes', {
    name: w.unique('line'),
    channel: { type: 'line', line_channel_id: channelId, line_channel_secret: secret, line_channel_token: 'bench-line-token' },
  });
  return { channelId, secret };
}

/** LINE's webhook for a text from `userId`. */
export const lineText = (eventId: string, userId: string, messageId: string, text: string) =>
  JSON.stringify({
    destination: 'Ubench',
    events: [
      {
        type: 'message',
        message: { type: 'text', id: messageId, quoteToken: 'q', text },
        webhookEventId: eventId,
        deliveryContext: { isRedelivery: false },
        timestamp: Date.now(),
        source: { type: 'user', userId },
        replyToken: 'r',
        mode: 'active',
      },
    ],
  });

/** A page id no inbox of the run holds. */
const benchPage = () => String(900_000_000_000 + (process.pid % 1000) * 1000 + ++numbers);

/** A page registered as an inbox (its id among the fake's pages); the inbox's id. */
async function registeredPage(w: BenchWorld): Promise<number> {
  await fakeProviders();
  const pageId = benchPage();
  pagesRegistered.push(pageId);
  const r = await ok(w, 'POST', '/callbacks/register_facebook_page', {
    user_access_token: 'bench-user',
    page_access_token: 'bench-page',
    page_id: pageId,
    inbox_name: w.unique('page'),
  });
  return r.id as number;
}

export const channels: Scenarios = {
  // Bandwidth's callback array with one received message: the number's sentinel and the inbox, the payload queued.
  'POST /webhooks/sms/{phone_number}': {
    setup: bandwidthInbox,
    request: (w, s: { phone: string }, _p, i) => ({
      method: 'POST',
      path: `/webhooks/sms/${s.phone.slice(1)}`,
      body: JSON.stringify([
        {
          type: 'message-received',
          to: s.phone,
          description: 'Incoming message received',
          message: { id: w.unique('bw'), from: `+1444${String(i % 50).padStart(7, '0')}`, to: [s.phone], text: `Question ${i}`, media: [] },
        },
      ]),
      headers: { 'content-type': 'application/json' },
    }),
  },
  // A customer's SMS: the number's sentinel and the inbox, the signature, the payload queued.
  'POST /twilio/callback': {
    setup: twilioInbox,
    request: (w, s: Awaited<ReturnType<typeof twilioInbox>>, _p, i) => {
      const sid = `SM${w.unique('b').replace(/\W/g, '')}`;
      return twilioRequest(w, '/twilio/callback', {
        SmsSid: sid,
        MessageSid: sid,
        AccountSid: TWILIO_SID,
        From: `+1444${String(i % 50).padStart(7, '0')}`,
        To: s.phone,
        Body: `Question ${i}`,
        NumMedia: '0',
      });
    },
  },
  // A status of a message we sent (its message is found by the pipeline).
  'POST /twilio/delivery_status': {
    setup: twilioInbox,
    request: (w, s: Awaited<ReturnType<typeof twilioInbox>>, _p, i) =>
      twilioRequest(w, '/twilio/delivery_status', {
        MessageSid: `SMbench${i}`,
        MessageStatus: 'delivered',
        AccountSid: TWILIO_SID,
        From: s.phone,
        To: '+14440000000',
      }),
  },
  // Connecting Twilio: the credential check and the number's callback (the provider stub), the inbox and its sentinel.
  [`POST ${A}/channels/twilio_channel`]: {
    request: (w) => ({
      method: 'POST',
      path: `${w.account.base}/channels/twilio_channel`,
      body: {
        twilio_channel: { name: 'SMS', medium: 'sms', account_sid: TWILIO_SID, auth_token: TWILIO_TOKEN, phone_number: benchPhone() },
      },
    }),
  },
  // The templates fetched from the provider (the stub: none) and stored on the inbox.
  [`POST ${A}/inboxes/{id}/sync_templates`]: {
    setup: whatsappInbox,
    request: (w, s: Awaited<ReturnType<typeof whatsappInbox>>) => ({
      method: 'POST',
      path: `${w.account.base}/inboxes/${s.id}/sync_templates`,
    }),
  },
  // The verify handshake: one key read (the number's sentinel) and the inbox.
  'GET /webhooks/whatsapp/{phone_number}': {
    setup: whatsappInbox,
    request: (_w, s: Awaited<ReturnType<typeof whatsappInbox>>) => ({
      method: 'GET',
      path: `/webhooks/whatsapp/${s.phone}?hub.mode=subscribe&hub.verify_token=${s.verifyToken}&hub.challenge=42`,
    }),
  },
  // A customer's text: the inbox by its number, the payload queued (the pipeline stores it: see the pipeline part).
  'POST /webhooks/whatsapp/{phone_number}': {
    setup: whatsappInbox,
    request: (w, s: Awaited<ReturnType<typeof whatsappInbox>>, _p, i) => ({
      method: 'POST',
      path: `/webhooks/whatsapp/${s.phone}`,
      body: whatsappText(s.phone, `1444${String(i % 50).padStart(7, '0')}`, `wamid.${w.unique('bench')}`, `Question ${i}`),
      headers: { 'content-type': 'application/json' },
    }),
  },
  // A customer's text to a Telegram bot: the inbox by its bot id, the secret token, the update queued.
  'POST /webhooks/telegram/{bot_token}': {
    setup: telegramInbox,
    request: (_w, s: Awaited<ReturnType<typeof telegramInbox>>, _p, i) => ({
      method: 'POST',
      path: `/webhooks/telegram/${s.botId}`,
      body: telegramText(100_000 + i, 5_000_000 + (i % 50), 1_000 + i, `Question ${i}`),
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': s.secret },
    }),
  },
  // A customer's text to a LINE channel: the inbox by its channel id, the signature, the event queued.
  'POST /webhooks/line/{line_channel_id}': {
    setup: lineInbox,
    request: (w, s: Awaited<ReturnType<typeof lineInbox>>, _p, i) => {
      const body = lineText(w.unique('ev'), `Ubench${i % 50}`, String(3_000_000 + i), `Question ${i}`);
      return {
        method: 'POST',
        path: `/webhooks/line/${s.channelId}`,
        body,
        headers: { 'content-type': 'application/json', 'x-line-signature': createHmac('sha256', s.secret).update(body).digest('base64') },
      };
    },
  },
  // Meta's verify handshake: no lookup at all (a wrong token here: the bench sets no FB_VERIFY_TOKEN).
  'GET /bot': {
    request: () => ({ method: 'GET', path: '/bot?hub.mode=subscribe&hub.verify_token=bench&hub.challenge=42', status: 401 }),
  },
  // A page's webhook, unsigned: refused before any page is looked up (the bench runs without FB_APP_SECRET, which
  // WhatsApp's unsigned scenario needs, so no Messenger payload can be signed here).
  'POST /bot': {
    setup: async () => ({ pageId: benchPage() }),
    request: (_w, s: { pageId: string }, _p, i) => ({
      method: 'POST',
      path: '/bot',
      body: JSON.stringify({
        object: 'page',
        entry: [
          {
            id: s.pageId,
            time: Date.now(),
            messaging: [{ sender: { id: '1' }, recipient: { id: s.pageId }, message: { mid: `m_${i}`, text: 'hi' } }],
          },
        ],
      }),
      headers: { 'content-type': 'application/json' },
      status: 401,
    }),
  },
  // Instagram's verify handshake: no lookup (a wrong token: the bench sets no INSTAGRAM_VERIFY_TOKEN).
  'GET /webhooks/instagram': {
    request: () => ({ method: 'GET', path: '/webhooks/instagram?hub.mode=subscribe&hub.verify_token=bench&hub.challenge=42', status: 401 }),
  },
  // An Instagram webhook for an account no inbox links, signed by the Instagram app's secret: the account's
  // sentinel reads, answered `ok`.
  'POST /webhooks/instagram': {
    setup: async () => {
      await fakeProviders();
      return { igId: `1784${benchPage()}` };
    },
    request: (_w, s: { igId: string }, _p, i) =>
      signedByInstagramApp({
        method: 'POST',
        path: '/webhooks/instagram',
        body: JSON.stringify({
          object: 'instagram',
          entry: [
            {
              id: s.igId,
              time: Date.now(),
              messaging: [{ sender: { id: '1' }, recipient: { id: s.igId }, message: { mid: `ig_${i}`, text: 'hi' } }],
            },
          ],
        }),
      }),
  },
  // A page registered: the inbox and its sentinels written, Graph's subscription and Instagram account asked.
  [`POST ${A}/callbacks/register_facebook_page`]: {
    setup: fakeProviders,
    request: (w) => ({
      method: 'POST',
      path: `${w.account.base}/callbacks/register_facebook_page`,
      body: { user_access_token: 'bench-user', page_access_token: 'bench-page', page_id: benchPage(), inbox_name: w.unique('page') },
    }),
  },
  // The user's pages after the Facebook login: the token exchanged, the pages read, each page's sentinel read.
  [`POST ${A}/callbacks/facebook_pages`]: {
    setup: async (w) => {
      await registeredPage(w);
      await registeredPage(w);
    },
    request: (w) => ({ method: 'POST', path: `${w.account.base}/callbacks/facebook_pages`, body: { omniauth_token: 'bench-login' } }),
  },
  // A page given fresh tokens: the inbox read, the token exchanged, the pages read, the inbox updated.
  [`POST ${A}/callbacks/reauthorize_page`]: {
    setup: registeredPage,
    request: (w, inboxId: number) => ({
      method: 'POST',
      path: `${w.account.base}/callbacks/reauthorize_page`,
      body: { omniauth_token: 'bench-login', inbox_id: inboxId },
    }),
  },
  // Instagram's login URL: its signed state.
  [`POST ${A}/instagram/authorization`]: {
    setup: fakeProviders,
    request: (w) => ({ method: 'POST', path: `${w.account.base}/instagram/authorization` }),
  },
  // Instagram's OAuth redirect back: the code and tokens exchanged, the account read, its inbox created (then
  // reauthorized), the account subscribed, the browser redirected.
  'GET /instagram/callback': {
    setup: async (w) => {
      await fakeProviders();
      const a = await ok(w, 'POST', '/instagram/authorization', {});
      return new URL(a.url).searchParams.get('state') ?? '';
    },
    request: (_w, state: string) => ({
      method: 'GET',
      path: `/instagram/callback?code=bench-code&state=${encodeURIComponent(state)}`,
      status: 302,
    }),
  },
  // The retry of a message: read, reset and written back (the pipeline sends it where a channel does).
  [`POST ${A}/conversations/{conversation_id}/messages/{message_id}/retry`]: {
    setup: async (w) => {
      const inbox = (await ok(w, 'POST', '/inboxes', { name: w.unique('inbox'), channel: { type: 'api' } })).id;
      const contact = (await ok(w, 'POST', '/contacts', { name: 'Bench Contact', email: `${w.unique('c')}@bench.example` })).payload.contact
        .id;
      const conv = (await ok(w, 'POST', '/conversations', { inbox_id: inbox, contact_id: contact })).id;
      const message = (await ok(w, 'POST', `/conversations/${conv}/messages`, { content: 'Bench message' })).id;
      return { conv, message };
    },
    request: (w, s: { conv: number; message: number }) => ({
      method: 'POST',
      path: `${w.account.base}/conversations/${s.conv}/messages/${s.message}/retry`,
    }),
  },
  // A mail through Rails' relay ingress (docs/mail.md#ways-in): its headers routed to the inbox (one key read), the raw
  // mail queued (channel-inbound); the pipeline makes the message (see the pipeline part).
  'POST /rails/action_mailbox/relay/inbound_emails': {
    setup: async (w) => {
      const email = `${w.unique('support')}@bench.example`;
      await ok(w, 'POST', '/inboxes', { name: w.unique('mail'), channel: { type: 'email', email } });
      return { email };
    },
    request: (w, s: { email: string }, _p, i) => ({
      method: 'POST',
      path: '/rails/action_mailbox/relay/inbound_emails',
      body: [
        `From: Bench Customer <customer${i % 50}@bench.example>`,
        `To: ${s.email}`,
        `Subject: Question ${i}`,
        `Message-ID: <${w.unique('mail')}@bench.example>`,
        'Content-Type: text/plain; charset=utf-8',
        '',
        `Hello, question ${i}.`,
        '',
      ].join('\r\n'),
      headers: {
        'content-type': 'message/rfc822',
        authorization: `Basic ${Buffer.from(`actionmailbox:${mailConfig().inboundMail.relayPassword ?? ''}`).toString('base64')}`,
      },
      status: 204,
    }),
  },
};
