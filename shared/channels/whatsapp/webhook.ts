import { providerConfig } from '#shared/config.ts';
import { findChannelInbox } from '#shared/db/repositories/channels.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { providerSetting, refusedAnswer, type RoomWebhook, type WebhookRequest } from '../channel.ts';
import { hubSignatureValid, secretMatches } from '../signatures.ts';
import type { Provider } from './bodies.ts';
import { parseWhatsapp } from './parse.ts';

// WhatsApp's webhook side (docs/channels.md#whatsapp): Meta's verify handshake, the inbox of the path's number, the
// Cloud signature and the payload's events.

export const providerOf = (inbox: InboxRecord): Provider => (inbox.provider === 'whatsapp_cloud' ? 'whatsapp_cloud' : 'default');
const setting = providerSetting;

/** The inbox of the path's number (`+` and digits, as stored); nothing is looked up for anything else. */
const inboxOfPath = (req: WebhookRequest) => {
  const phone = req.params.phone_number ?? '';
  return /^\+?\d{4,20}$/.test(phone) ? findChannelInbox('WHATSAPP', phone) : Promise.resolve(undefined);
};

async function verifyHandshake(req: WebhookRequest) {
  if (req.method !== 'GET') return undefined;
  const inbox = await inboxOfPath(req);
  const token = req.query['hub.verify_token'];
  const expected = inbox ? setting(inbox, 'webhook_verify_token') : '';
  if (secretMatches(token, expected)) return { status: 200, body: req.query['hub.challenge'] ?? '' };
  return refusedAnswer(401, 'Error; wrong verify token', 'hub.verify_token', 'invalid');
}

export const whatsappWebhook = {
  kind: 'whatsapp',
  ingest: {
    handshake: verifyHandshake,
    inbox: inboxOfPath,
    verify(req, inbox) {
      // Meta signs Cloud webhooks with the app's secret; without one configured there is nothing to check (as Chatwoot).
      const secret = providerConfig().fbAppSecret;
      if (!secret || providerOf(inbox) !== 'whatsapp_cloud') return true;
      return hubSignatureValid(req.body, req.headers['x-hub-signature-256'], secret);
    },
    parse: (body, _type, inbox) => parseWhatsapp(body, setting(inbox, 'phone_number_id') || undefined),
    accepted: { status: 200 },
  },
} satisfies RoomWebhook;
