import { config, providerConfig } from '#shared/config.ts';
import { noteAuthorizationError } from '#shared/domain/channels/reauthorize.ts';
import type { OutgoingContext } from '#shared/domain/channels/send.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { ChannelRoom, MediaRef, SendOutcome } from '../channel.ts';
import { graphError, sendInstagramParts, tokenQuery } from '../graph.ts';
import { callProvider, downloadMedia } from '../http.ts';
import { IG_VERSION, instagramToken } from './login.ts';
import { instagramWebhook, isLogin } from './webhook.ts';

// Instagram's webhooks (docs/channels.md#instagram), for both kinds of Instagram inbox: an Instagram-login inbox
// (`Channel::Instagram`, this room sends its replies to graph.instagram.com) and an account linked to a Facebook page
// inbox (the page inbox holds the conversations, `additional_attributes.type = instagram_direct_message`, and the
// page's room sends their replies). Chatwoot matches the login inbox first. `GET /webhooks/instagram` verifies with
// INSTAGRAM_VERIFY_TOKEN; `POST` must carry `X-Hub-Signature-256` by the app's secret (Chatwoot checks none).

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
      url: `${providerConfig().instagramGraphBaseUrl}/${IG_VERSION}/${encodeURIComponent(contact.sourceId)}?${q}`,
    });
    if (!answer.ok && graphError(answer)?.code === 190) await noteAuthorizationError(inbox, 1);
    const name = answer.ok ? answer.json?.name || answer.json?.username : undefined;
    return typeof name === 'string' && name ? { name } : { name: `Unknown (IG: ${contact.sourceId})` };
  }
  const answer = await callProvider({
    method: 'GET',
    url: `${providerConfig().facebookGraphBaseUrl}/${encodeURIComponent(contact.sourceId)}?fields=name,username,profile_pic&${tokenQuery(inbox.page_access_token ?? '')}`,
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
  const url = `${providerConfig().instagramGraphBaseUrl}/${IG_VERSION}/${encodeURIComponent(account)}/messages?${new URLSearchParams({ access_token: token })}`;
  return sendInstagramParts(ctx, url, { humanAgent: config().instagramHumanAgent, tokenRefused: () => noteAuthorizationError(inbox, 1) });
}

export const instagramRoom: ChannelRoom = {
  ...instagramWebhook,
  // Instagram-login inboxes; a page's linked account is sent by the page's room.
  channelTypes: ['Channel::Instagram'],
  fetchMedia: (_inbox: InboxRecord, ref: MediaRef) => (ref.url ? downloadMedia(ref.url, {}) : Promise.resolve(undefined)),
  send,
  profile,
};
