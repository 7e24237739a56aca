import { config } from '#shared/config.ts';
import { findChannelInbox } from '#shared/db/repositories/channels.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { RoomWebhook, WebhookRequest } from '../channel.ts';
import { twilioSignatureValid } from '../signatures.ts';
import { parseTwilio } from './parse.ts';

// Twilio's webhook side (docs/channels.md#twilio): `/twilio/callback` and `/twilio/delivery_status`, form-encoded and
// signed with X-Twilio-Signature.

const form = (body: Buffer) => new URLSearchParams(body.toString('utf8'));

/**
 * The inbox a webhook names: its messaging service, else our number (`To` of an incoming message, `From` of a
 * status), which must belong to the account the webhook names.
 */
async function inboxOf(req: WebhookRequest): Promise<InboxRecord | undefined> {
  const f = form(req.body);
  const service = f.get('MessagingServiceSid');
  const ours = req.path.endsWith('/delivery_status') ? f.get('From') : f.get('To');
  const key = service || ours;
  if (!key || key.length > 64) return undefined;
  const inbox = await findChannelInbox('TWILIO', key);
  if (!inbox || (!service && inbox.account_sid !== f.get('AccountSid'))) return undefined;
  return inbox;
}

/** Twilio signs the URL it called exactly: the query string as received, never one rebuilt from its parsed values. */
function verify(req: WebhookRequest, inbox: InboxRecord): boolean {
  const query = req.rawQuery ?? new URLSearchParams(req.query).toString();
  const url = `${config().frontendUrl}${req.path}${query ? `?${query}` : ''}`;
  return twilioSignatureValid(url, [...form(req.body)], req.headers['x-twilio-signature'], inbox.auth_token ?? '');
}

export const twilioWebhook = {
  kind: 'twilio',
  ingest: {
    inbox: inboxOf,
    verify,
    parse: (body) => parseTwilio(body),
    accepted: { status: 204 },
  },
} satisfies RoomWebhook;
