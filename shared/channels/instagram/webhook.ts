import { providerConfig } from '#shared/config.ts';
import { findChannelInbox } from '#shared/db/repositories/channels.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { refusedAnswer, type RoomWebhook, type WebhookRequest } from '../channel.ts';
import { hubSignatureValid, secretMatches } from '../signatures.ts';
import { accountsOf, parseInstagram } from './parse.ts';

// Instagram's webhook side (docs/channels.md#instagram), for both kinds of Instagram inbox: `GET /webhooks/instagram`
// verifies with INSTAGRAM_VERIFY_TOKEN; `POST` must carry `X-Hub-Signature-256` by the app's secret.

export const isLogin = (inbox: InboxRecord) => inbox.channel_type === 'Channel::Instagram';

const WRONG_TOKEN = refusedAnswer(401, 'Error; wrong verify token', 'hub.verify_token', 'invalid');

/** A payload about anything but Instagram: Chatwoot's 422. */
const NOT_INSTAGRAM = refusedAnswer(422, 'Unprocessable: object is not instagram', 'object', 'invalid');

function objectOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'))?.object;
  } catch {
    return undefined;
  }
}

async function handshake(req: WebhookRequest) {
  if (req.method !== 'GET') {
    const object = objectOf(req.body);
    return typeof object === 'string' && object.toLowerCase() !== 'instagram' ? NOT_INSTAGRAM : undefined;
  }
  const expected = providerConfig().instagramVerifyToken;
  if (req.query['hub.mode'] !== 'subscribe' || !secretMatches(req.query['hub.verify_token'], expected)) return WRONG_TOKEN;
  return { status: 200, body: req.query['hub.challenge'] ?? '', contentType: 'text/plain' };
}

async function inboxes(req: WebhookRequest): Promise<InboxRecord[]> {
  let accounts: string[];
  try {
    accounts = accountsOf(req.body.toString('utf8')).filter((a) => /^\d{1,30}$/.test(a));
  } catch {
    return [];
  }
  // The Instagram-login inbox of the account, else the page it is linked to (both read at once).
  const found = await Promise.all(
    accounts.slice(0, 50).map(async (a) => {
      const [login, page] = await Promise.all([findChannelInbox('INSTAGRAM_LOGIN', a), findChannelInbox('INSTAGRAM', a)]);
      return login ?? page;
    }),
  );
  return found.filter((i): i is InboxRecord => !!i);
}

/** Signed by the app the inbox belongs to: the Instagram app (login), the Meta app (a page's account). */
/** Signed by the Instagram app's or the Meta app's secret (whichever inbox kind the payload is for). */
function verifyRequest(req: WebhookRequest): boolean {
  const { instagramAppSecret, fbAppSecret } = providerConfig();
  return [instagramAppSecret, fbAppSecret].some(
    (secret) => !!secret && hubSignatureValid(req.body, req.headers['x-hub-signature-256'], secret),
  );
}

function verify(req: WebhookRequest, inbox: InboxRecord): boolean {
  const secret = isLogin(inbox) ? providerConfig().instagramAppSecret : providerConfig().fbAppSecret;
  return !!secret && hubSignatureValid(req.body, req.headers['x-hub-signature-256'], secret);
}

export const instagramWebhook = {
  kind: 'instagram',
  ingest: {
    handshake,
    inbox: async (req) => (await inboxes(req))[0],
    inboxes,
    // Signed by one of the apps' secrets, checked before the accounts' inboxes are looked up; then by the secret of
    // each inbox's kind.
    verifyRequest,
    verify,
    parse: (body, _type, inbox) => parseInstagram(body, inbox.instagram_id, !isLogin(inbox)),
    accepted: { status: 200, body: 'ok', contentType: 'text/plain' },
  },
} satisfies RoomWebhook;
