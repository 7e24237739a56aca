import { config, providerConfig } from '#shared/config.ts';
import { noteAuthorizationError } from '#shared/domain/channels/reauthorize.ts';
import type { OutgoingContext } from '#shared/domain/channels/send.ts';
import { log } from '#shared/log.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { fileScope, fileUrl } from '#shared/storage/file-urls.ts';
import type { ChannelRoom, MediaRef, SendOutcome } from '../channel.ts';
import { graphError, isTokenError, sendInstagramParts, tokenQuery } from '../graph.ts';
import { callProvider, downloadMedia, jsonHeaders } from '../http.ts';
import { plainText } from '../markup.ts';
import { attachmentBody, textBody } from './bodies.ts';
import { facebookWebhook } from './webhook.ts';

// Facebook Messenger, through a page (docs/channels.md#facebook-messenger): `GET /bot` verifies the app's webhook,
// `POST /bot` carries every page's events signed with the app secret; sends go to Graph with the page's token and
// its `appsecret_proof`.

/** Chatwoot's Graph version for Messenger (the facebook-messenger gem's). */
const VERSION = 'v3.2';
const graph = () => `${providerConfig().facebookGraphBaseUrl}/${VERSION}`;
const pageToken = (inbox: InboxRecord) => inbox.page_access_token ?? '';

/** The fields the page is subscribed to (Chatwoot's). */
export const SUBSCRIBED_FIELDS = ['messages', 'message_deliveries', 'message_echoes', 'message_reads', 'standby', 'messaging_handovers'];

const fetchMedia = (_inbox: InboxRecord, ref: MediaRef) => (ref.url ? downloadMedia(ref.url, {}) : Promise.resolve(undefined));

/** The contact's name from Graph (`first_name last_name`). */
async function profile(inbox: InboxRecord, contact: { sourceId: string }) {
  const answer = await callProvider({
    method: 'GET',
    url: `${graph()}/${encodeURIComponent(contact.sourceId)}?fields=first_name,last_name,profile_pic&${tokenQuery(pageToken(inbox))}`,
  });
  if (!answer.ok) {
    if (isTokenError(graphError(answer))) await noteAuthorizationError(inbox);
    return undefined;
  }
  const name = [answer.json?.first_name, answer.json?.last_name].filter((x) => typeof x === 'string' && x).join(' ');
  return name ? { name } : undefined;
}

/**
 * The text first, then one request per attachment (Chatwoot's order); `source_id` is the last `message_id`, and
 * every part's id is recorded (its echo is then known). A token Graph refuses counts toward the inbox's
 * reauthorization. A failure once a part went out fails the message rather than retrying it.
 */
async function send(ctx: OutgoingContext): Promise<SendOutcome> {
  if (ctx.conversation.additional_attributes?.type === 'instagram_direct_message') return sendInstagram(ctx);
  const { inbox, message } = ctx;
  const bodies: Record<string, unknown>[] = [];
  const text = plainText(message.content);
  if (text || message.content_type === 'input_select') bodies.push(textBody(ctx.recipient, text, message));
  for (const a of message.attachments) {
    if (a.file_type === 'location' || a.file_type === 'contact' || a.file_type === 'fallback') continue;
    bodies.push(attachmentBody(ctx.recipient, a, fileUrl(a.data_url, fileScope.attachment(a.account_id), a.filename)));
  }
  let sourceId: string | undefined;
  const partIds: string[] = [];
  for (const body of bodies) {
    const answer = await callProvider({
      method: 'POST',
      url: `${graph()}/me/messages?${tokenQuery(pageToken(inbox))}`,
      headers: jsonHeaders,
      body: JSON.stringify(body),
    });
    const id = answer.ok ? answer.json?.message_id : undefined;
    if (typeof id === 'string' && id) {
      if (sourceId) partIds.push(sourceId);
      sourceId = id;
      continue;
    }
    if (!answer.ok && answer.retry && sourceId === undefined) return { retry: answer.error };
    const error = graphError(answer);
    if (isTokenError(error)) await noteAuthorizationError(inbox);
    return { refused: (typeof error?.message === 'string' && error.message) || 'Facebook was unable to process this request' };
  }
  return sourceId ? { sourceId, partIds } : { refused: 'Facebook was unable to process this request' };
}

/**
 * A reply in the page's Instagram conversation (Chatwoot's Instagram::Messenger::SendOnInstagramService): Graph
 * v11.0 with the page's token, `HUMAN_AGENT` with ENABLE_MESSENGER_CHANNEL_HUMAN_AGENT; a token error (190) marks the
 * inbox for reauthorization at once.
 */
const sendInstagram = (ctx: OutgoingContext): Promise<SendOutcome> =>
  sendInstagramParts(ctx, `${providerConfig().facebookGraphBaseUrl}/v11.0/me/messages?${tokenQuery(pageToken(ctx.inbox))}`, {
    humanAgent: config().messengerHumanAgent,
    tokenRefused: () => noteAuthorizationError(ctx.inbox, 1),
  });

/**
 * A page registered (or its token changed): subscribed to the app's webhook fields (errors ignored, as Chatwoot),
 * and its linked Instagram business account read.
 */
async function setup(inbox: InboxRecord, before?: InboxRecord): Promise<InboxRecord> {
  const token = pageToken(inbox);
  if (before && before.page_access_token === token) return inbox;
  const subscribed = await callProvider({
    method: 'POST',
    url: `${graph()}/me/subscribed_apps?${tokenQuery(token)}`,
    headers: jsonHeaders,
    body: JSON.stringify({ access_token: token, subscribed_fields: SUBSCRIBED_FIELDS }),
  });
  if (!subscribed.ok) log.warn('facebook page not subscribed', { inboxId: inbox.id, error: graphError(subscribed)?.message });
  const me = await callProvider({ method: 'GET', url: `${graph()}/me?fields=instagram_business_account&${tokenQuery(token)}` });
  const instagram = me.ok ? me.json?.instagram_business_account?.id : undefined;
  return { ...inbox, instagram_id: typeof instagram === 'string' ? instagram : (inbox.instagram_id ?? null) };
}

export const facebookRoom: ChannelRoom = {
  ...facebookWebhook,
  channelTypes: ['Channel::FacebookPage'],
  fetchMedia,
  send,
  setup,
  profile,
};
