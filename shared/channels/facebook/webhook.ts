import { providerConfig } from '#shared/config.ts';
import { findChannelInbox } from '#shared/db/repositories/channels.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { refusedAnswer, type RoomWebhook, type WebhookRequest } from '../channel.ts';
import { hubSha1SignatureValid, hubSignatureValid, secretMatches } from '../signatures.ts';
import { pagesOf, parseMessenger } from './parse.ts';

// Messenger's webhook side (docs/channels.md#facebook-messenger): `GET /bot` verifies the app's webhook, `POST /bot`
// carries every page's events signed with the app secret.

const WRONG_TOKEN = refusedAnswer(401, 'Error; wrong verify token', 'hub.verify_token', 'invalid');

/** `GET /bot`: the challenge only for the configured verify token (Chatwoot answers any token). */
async function handshake(req: WebhookRequest) {
  if (req.method !== 'GET') return undefined;
  const expected = providerConfig().fbVerifyToken;
  if (req.query['hub.mode'] !== 'subscribe' || !secretMatches(req.query['hub.verify_token'], expected)) return WRONG_TOKEN;
  return { status: 200, body: req.query['hub.challenge'] ?? '', contentType: 'text/plain' };
}

/** The inboxes of the pages a payload names: one key lookup each. */
async function inboxes(req: WebhookRequest): Promise<InboxRecord[]> {
  let pages: string[];
  try {
    pages = pagesOf(req.body.toString('utf8')).filter((p) => /^\d{1,30}$/.test(p));
  } catch {
    return [];
  }
  const found = await Promise.all(pages.slice(0, 50).map((p) => findChannelInbox('FACEBOOK', p)));
  return found.filter((i): i is InboxRecord => !!i);
}

/** Meta signs with the app secret: `X-Hub-Signature-256`, or the legacy sha1 `X-Hub-Signature`; no secret, no trust. */
function verify(req: WebhookRequest): boolean {
  const secret = providerConfig().fbAppSecret;
  if (!secret) return false;
  const sha256 = req.headers['x-hub-signature-256'];
  return sha256 ? hubSignatureValid(req.body, sha256, secret) : hubSha1SignatureValid(req.body, req.headers['x-hub-signature'], secret);
}

export const facebookWebhook = {
  kind: 'facebook',
  ingest: {
    handshake,
    inbox: async (req) => (await inboxes(req))[0],
    inboxes,
    // The app's secret signs every page's payload: checked before the pages' inboxes are looked up.
    verifyRequest: verify,
    parse: (body, _type, inbox) => parseMessenger(body, inbox.page_id, providerConfig().fbAppId),
    accepted: { status: 200 },
  },
} satisfies RoomWebhook;
