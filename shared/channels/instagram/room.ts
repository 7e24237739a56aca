import { config } from '#shared/config.ts';
import { findChannelInbox } from '#shared/db/repositories/channels.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { refusedAnswer, type ChannelRoom, type MediaRef, type WebhookRequest } from '../channel.ts';
import { tokenQuery } from '../graph.ts';
import { callProvider, downloadMedia } from '../http.ts';
import { hubSignatureValid, secretMatches } from '../signatures.ts';
import { accountsOf, parseInstagram } from './parse.ts';

// Instagram's webhooks (docs/channels.md#instagram), for an Instagram account linked to a Facebook page inbox: the
// page inbox holds the conversations (`additional_attributes.type = instagram_direct_message`), and the page's room
// sends their replies. `GET /webhooks/instagram` verifies with INSTAGRAM_VERIFY_TOKEN; `POST` must carry
// `X-Hub-Signature-256` by the Meta app's secret (Chatwoot checks none).

const WRONG_TOKEN = refusedAnswer(401, 'Error; wrong verify token', 'hub.verify_token', 'invalid');

async function handshake(req: WebhookRequest) {
  if (req.method !== 'GET') return undefined;
  const expected = config().instagramVerifyToken;
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
  const found = await Promise.all(accounts.slice(0, 50).map((a) => findChannelInbox('INSTAGRAM', a)));
  return found.filter((i): i is InboxRecord => !!i);
}

function verify(req: WebhookRequest): boolean {
  const secret = config().fbAppSecret;
  return !!secret && hubSignatureValid(req.body, req.headers['x-hub-signature-256'], secret);
}

/** The contact's name, through the page (Chatwoot's Koala `get_object`): `name`, else its `username`. */
async function profile(inbox: InboxRecord, contact: { sourceId: string }) {
  const answer = await callProvider({
    method: 'GET',
    url: `${config().facebookGraphBaseUrl}/${encodeURIComponent(contact.sourceId)}?fields=name,username,profile_pic&${tokenQuery(inbox.page_access_token ?? '')}`,
  });
  const name = answer.ok ? (answer.json?.name ?? answer.json?.username) : undefined;
  return typeof name === 'string' && name ? { name } : { name: `Unknown (IG: ${contact.sourceId})` };
}

export const instagramRoom: ChannelRoom = {
  kind: 'instagram',
  // The page inbox's room sends (its conversations of this kind go to Instagram).
  channelTypes: [],
  ingest: {
    handshake,
    inbox: async (req) => (await inboxes(req))[0],
    inboxes,
    // The app's secret signs every page's payload: checked before the pages' inboxes are looked up.
    verifyRequest: verify,
    parse: (body, _type, inbox) => parseInstagram(body, inbox.instagram_id),
    accepted: { status: 200, body: 'ok', contentType: 'text/plain' },
  },
  fetchMedia: (_inbox: InboxRecord, ref: MediaRef) => (ref.url ? downloadMedia(ref.url, {}) : Promise.resolve(undefined)),
  send: async () => ({ refused: 'Instagram conversations are sent by their page' }),
  profile,
};
