import { config } from '#shared/config.ts';
import { signJwt, verifyJwt } from '#shared/crypto/jwt.ts';
import { findContactInbox, getContact } from '#shared/db/repositories/contacts.ts';
import { listContactConversationLinks } from '#shared/db/repositories/conversations.ts';
import { getAccount, getAgentBot } from '#shared/db/repositories/identity.ts';
import { findInboxByWebsiteToken } from '#shared/db/repositories/inboxes.ts';
import { emitContactSignal } from '#shared/db/repositories/signals.ts';
import { notFound, unauthorized } from '#shared/errors.ts';
import { parseOrThrow } from '#shared/validate.ts';
import type { ContactInboxRecord, ContactRecord } from '#shared/model/contacts.ts';
import { createContact } from '../contacts/service.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { randomName } from '../public/service.ts';
import { publicContactJson } from '../public/view.ts';
import { browserOf, languageOf } from './browser.ts';
import { WidgetEventSchema } from './schemas.ts';
import { widgetChannelJson } from './view.ts';
import { getPortal } from '#shared/db/repositories/help-center.ts';
import { assertAccountActive } from '../accounts/suspension.ts';
import { runCampaign } from './campaigns.ts';
import type { AccountRecord } from '#shared/model/identity.ts';

// The web widget's own API (Chatwoot's `api/v1/widget/*`). The inbox's `website_token` in the query
// string names the inbox; the `X-Auth-Token` header, a JWT issued by `config`, names the visitor: its
// claims are the contact inbox's `source_id` and the inbox id, signed under a key derived from the token
// key. A token of another inbox names no one here.

/** Longer values cannot be website tokens or source ids, and must not reach a key. */
const MAX_IDENTIFIER = 255;
const JWT_PURPOSE = 'widget';
/** Chatwoot's default widget token lifetime (`WIDGET_TOKEN_EXPIRY`, 180 days). */
const TOKEN_TTL_SECONDS = 180 * 24 * 3600;

/** Chatwoot reads `website_token` from its params: the query string (as the widget sends it) or the body. */
export const websiteTokenOf = (query: Record<string, string | undefined>, body: Record<string, unknown>): string | undefined =>
  query.website_token ?? (typeof body.website_token === 'string' ? body.website_token : undefined);

/** The contact inbox an auth token names in this inbox, or undefined for a missing, bad, expired or foreign token. */
async function visitorOf(inbox: InboxRecord, authToken: string | undefined): Promise<ContactInboxRecord | undefined> {
  const claims = await verifyJwt(JWT_PURPOSE, authToken);
  const sourceId = claims?.source_id;
  if (claims?.inbox_id !== inbox.id || typeof sourceId !== 'string' || !sourceId || sourceId.length > MAX_IDENTIFIER) return undefined;
  const ci = await findContactInbox(inbox.id, sourceId);
  return ci?.account_id === inbox.account_id ? ci : undefined;
}

/**
 * The web widget inbox of a website token (404 otherwise), its account (403 when suspended) and the
 * visitor its auth token names, if any. The account and the visitor are read side by side.
 */
export async function session(websiteToken: string | undefined, authToken: string | undefined) {
  if (!websiteToken || websiteToken.length > MAX_IDENTIFIER) throw notFound('Inbox');
  const inbox = await findInboxByWebsiteToken(websiteToken);
  if (inbox?.channel_type !== 'Channel::WebWidget') throw notFound('Inbox');
  const [account, ci] = await Promise.all([getAccount(inbox.account_id), visitorOf(inbox, authToken)]);
  if (!account) throw notFound('Inbox');
  assertAccountActive(account);
  return { inbox, account, ci };
}

export const issueToken = (ci: ContactInboxRecord) =>
  signJwt(JWT_PURPOSE, { source_id: ci.source_id, inbox_id: ci.inbox_id }, TOKEN_TTL_SECONDS);

/**
 * `POST /api/v1/widget/config`: the widget's settings and its visitor. A valid token of this inbox keeps
 * its visitor; otherwise a new visitor contact (random name, no email or phone) with a contact inbox
 * here is made. Either way a fresh `auth_token` is issued.
 */
export async function widgetConfig(websiteToken: string | undefined, authToken: string | undefined) {
  const { inbox, account, ci: known } = await session(websiteToken, authToken);
  const [knownContact, bot, portal] = await Promise.all([
    known ? getContact(known.account_id, known.contact_id) : undefined,
    inbox.agent_bot_id ? getAgentBot(inbox.agent_bot_id) : undefined,
    inbox.portal_id ? getPortal(inbox.account_id, inbox.portal_id) : undefined,
  ]);
  let visitor: { ci: ContactInboxRecord; contact: ContactRecord };
  if (known && knownContact) visitor = { ci: known, contact: knownContact };
  else {
    const made = await createContact(inbox.account_id, { name: randomName() }, inbox);
    visitor = { ci: made.contactInbox!, contact: made.contact };
  }
  const channel = widgetChannelJson(inbox, account, bot?.name ?? null, portal);
  return {
    // Chatwoot's own key for the settings, and the name this service documents for them.
    chatwoot_website_channel: channel,
    website_channel_config: channel,
    chatwoot_widget_defaults: { use_inbox_avatar_for_bot: inbox.selected_feature_flags?.includes('use_inbox_avatar_for_bot') ?? false },
    contact: publicContactJson(visitor.ci, visitor.contact),
    auth_token: await issueToken(visitor.ci),
    global_config: {},
    // Where the widget's socket is (`wss://…/cable`): deployed, another host than the API's.
    websocket_url: config().cableUrl,
  };
}

/** The session of a request that must name its visitor: 401 without a valid auth token of this inbox. */
export async function visitorSession(websiteToken: string | undefined, authToken: string | undefined) {
  const { inbox, account, ci } = await session(websiteToken, authToken);
  if (!ci) throw unauthorized('Invalid or missing X-Auth-Token');
  return { inbox, account, ci };
}

/** What the request itself says about the visitor, beside the widget's own `event_info`. */
export interface RequestInfo {
  locale?: string;
  acceptLanguage?: string;
  userAgent?: string;
}

/**
 * Chatwoot adds `widget_language` (the `locale` query parameter), `browser_language` and `browser` from
 * the request. Values the caller sent itself win: Chatwoot's widget sends none of the three, a custom
 * client (or a server relaying for a visitor) knows better than its own request headers.
 */
function eventInfoOf(given: Record<string, unknown>, req: RequestInfo): Record<string, unknown> {
  return {
    ...given,
    widget_language: given.widget_language ?? req.locale?.slice(0, 35) ?? null,
    browser_language: given.browser_language ?? languageOf(req.acceptLanguage) ?? null,
    browser: given.browser ?? browserOf(req.userAgent),
  };
}

/**
 * `POST /api/v1/widget/events`: `campaign.triggered` runs the campaign (widget/campaigns.ts); otherwise the visitor opened the widget.
 * Raises `webwidget_triggered` for the
 * contact inbox, naming its latest conversation (display id) when it has one; 200 `{}`.
 */
export async function triggerWidgetEvent(websiteToken: string | undefined, authToken: string | undefined, body: unknown, req: RequestInfo) {
  // A contact inbox exists only while its contact does (they are deleted together).
  const { ci, inbox, account } = await session(websiteToken, authToken);
  if (!ci) throw unauthorized('Invalid or missing X-Auth-Token');
  const input = parseOrThrow(WidgetEventSchema, body);
  if (input.name === 'campaign.triggered') {
    // Chatwoot's CampaignListener: the campaign's conversation; no webwidget_triggered event.
    await runCampaign(account as AccountRecord, inbox, ci, eventInfoOf(input.event_info ?? {}, req));
    return {};
  }
  const latest = (await listContactConversationLinks(ci.account_id, ci.contact_id))
    .filter((l) => l.inbox_id === ci.inbox_id && l.source_id === ci.source_id)
    .at(-1);
  // In the contact's partition: the widget event concerns the visitor, with or without a conversation.
  await emitContactSignal({
    name: 'webwidget_triggered',
    account_id: ci.account_id,
    conversation_id: latest?.conversation_id ?? null,
    contact_id: ci.contact_id,
    inbox_id: ci.inbox_id,
    performed_by: { type: 'contact', id: ci.contact_id },
    is_private: false,
    data: { contact_inbox_id: ci.id, source_id: ci.source_id, event_info: eventInfoOf(input.event_info ?? {}, req) },
  });
  return {};
}
