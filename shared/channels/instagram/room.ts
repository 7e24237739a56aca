import { config } from '#shared/config.ts';
import { findChannelInbox } from '#shared/db/repositories/channels.ts';
import { noteAuthorizationError } from '#shared/domain/channels/reauthorize.ts';
import type { OutgoingContext } from '#shared/domain/channels/send.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { refusedAnswer, type ChannelRoom, type MediaRef, type SendOutcome, type WebhookRequest } from '../channel.ts';
import { graphError, sendInstagramParts, tokenQuery } from '../graph.ts';
import { callProvider, downloadMedia } from '../http.ts';
import { hubSignatureValid, secretMatches } from '../signatures.ts';
import { IG_VERSION, instagramToken } from './login.ts';
import { accountsOf, parseInstagram } from './parse.ts';

// Instagram's webhooks (docs/channels.md#instagram), for both kinds of Instagram inbox: an Instagram-login inbox
// (`Channel::Instagram`, this room sends its replies to graph.instagram.com) and an account linked to a Facebook page
// inbox (the page inbox holds the conversations, `additional_attributes.type = instagram_direct_message`, and the
// page's room sends their replies). Chatwoot matches the login inbox first. `GET /webhooks/instagram` verifies with
// INSTAGRAM_VERIFY_TOKEN; `POST` must carry `X-Hub-Signature-256` by the app's secret (Chatwoot checks none).

const isLogin = (inbox: InboxRecord) => inbox.channel_type === 'Channel::Instagram';

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
  const { instagramAppSecret, fbAppSecret } = config();
  return [instagramAppSecret, fbAppSecret].some(
    (secret) => !!secret && hubSignatureValid(req.body, req.headers['x-hub-signature-256'], secret),
  );
}

function verify(req: WebhookRequest, inbox: InboxRecord): boolean {
  const secret = isLogin(inbox) ? config().instagramAppSecret : config().fbAppSecret;
  return !!secret && hubSignatureValid(req.body, req.headers['x-hub-signature-256'], secret);
}

/**
 * The contact's name: an Instagram-login inbox asks graph.instagram.com (a token error, 190, marks the inbox for
 * reauthorization at once, as Chatwoot); a page's account asks Graph through the page (Chatwoot's Koala
 * `get_object`). `name`, else its `username`, else Chatwoot's `"Unknown (IG: <id>)"`.
 */
async function profile(inbox: InboxRecord, contact: { sourceId: string }) {
  if (isLogin(inbox)) {
    const fields = 'name,username,profile_pic,follower_count,is_user_follow_business,is_business_follow_user,is_verified_user';
    const q = new URLSearchParams({ fields, access_token: await instagramToken(inbox) });
    const answer = await callProvider({
      method: 'GET',
      url: `${config().instagramGraphBaseUrl}/${IG_VERSION}/${encodeURIComponent(contact.sourceId)}?${q}`,
    });
    if (!answer.ok && graphError(answer)?.code === 190) await noteAuthorizationError(inbox, 1);
    const name = answer.ok ? answer.json?.name || answer.json?.username : undefined;
    return typeof name === 'string' && name ? { name } : { name: `Unknown (IG: ${contact.sourceId})` };
  }
  const answer = await callProvider({
    method: 'GET',
    url: `${config().facebookGraphBaseUrl}/${encodeURIComponent(contact.sourceId)}?fields=name,username,profile_pic&${tokenQuery(inbox.page_access_token ?? '')}`,
  });
  const name = answer.ok ? (answer.json?.name ?? answer.json?.username) : undefined;
  return typeof name === 'string' && name ? { name } : { name: `Unknown (IG: ${contact.sourceId})` };
}

/**
 * A reply in an Instagram-login inbox (Chatwoot's Instagram::SendOnInstagramService): to
 * `{INSTAGRAM_GRAPH_BASE_URL}/v22.0/{instagram_id}/messages?access_token=…` (the token refreshed first when due),
 * `HUMAN_AGENT` with ENABLE_INSTAGRAM_CHANNEL_HUMAN_AGENT.
 */
async function send(ctx: OutgoingContext): Promise<SendOutcome> {
  const { inbox } = ctx;
  const token = await instagramToken(inbox);
  const account = inbox.instagram_id || 'me';
  const url = `${config().instagramGraphBaseUrl}/${IG_VERSION}/${encodeURIComponent(account)}/messages?${new URLSearchParams({ access_token: token })}`;
  return sendInstagramParts(ctx, url, { humanAgent: config().instagramHumanAgent, tokenRefused: () => noteAuthorizationError(inbox, 1) });
}

export const instagramRoom: ChannelRoom = {
  kind: 'instagram',
  // Instagram-login inboxes; a page's linked account is sent by the page's room.
  channelTypes: ['Channel::Instagram'],
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
  fetchMedia: (_inbox: InboxRecord, ref: MediaRef) => (ref.url ? downloadMedia(ref.url, {}) : Promise.resolve(undefined)),
  send,
  profile,
};
