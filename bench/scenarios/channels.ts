import { createHmac } from 'node:crypto';
import { config } from '#shared/config.ts';
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
        authorization: `Basic ${Buffer.from(`actionmailbox:${config().inboundMail.relayPassword ?? ''}`).toString('base64')}`,
      },
      status: 204,
    }),
  },
};
