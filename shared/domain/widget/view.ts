import type { AccountRecord } from '#shared/model/identity.ts';
import type { ContactInboxRecord, ContactRecord } from '#shared/model/contacts.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import { agentJson, attachmentJson, messagePushJson, senderJson, type Refs } from '../conversations/view.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { PortalRecord } from '#shared/model/help-center.ts';
import { contactAvatarUrl, inboxAvatarUrl } from '../contacts/view.ts';

// JSON of `POST /api/v1/widget/config` (Chatwoot's `api/v1/widget/configs/create.json.jbuilder`).

/** Rails' `formatted_offset` of a time zone now, e.g. `+05:30`. */
export function utcOffset(timezone: string, at = new Date()): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: timezone, timeZoneName: 'longOffset' })
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')?.value;
  return /([+-]\d{2}:\d{2})$/.exec(name ?? '')?.[1] ?? '+00:00';
}

/** The widget's settings, as the widget reads them to draw itself. */
export function widgetChannelJson(inbox: InboxRecord, account: AccountRecord, botName: string | null, portal?: PortalRecord) {
  return {
    avatar_url: inboxAvatarUrl(inbox),
    has_a_connected_agent_bot: botName,
    locale: account.locale,
    website_name: inbox.name,
    website_token: inbox.website_token,
    website_url: inbox.website_url,
    widget_color: inbox.widget_color,
    welcome_title: inbox.welcome_title,
    welcome_tagline: inbox.welcome_tagline,
    greeting_enabled: inbox.greeting_enabled,
    greeting_message: inbox.greeting_message,
    reply_time: inbox.reply_time,
    enabled_features: inbox.selected_feature_flags ?? [],
    pre_chat_form_enabled: inbox.pre_chat_form_enabled ?? false,
    pre_chat_form_options: inbox.pre_chat_form_options ?? {},
    continuity_via_email: inbox.continuity_via_email ?? false,
    hmac_mandatory: inbox.hmac_mandatory ?? false,
    working_hours_enabled: inbox.working_hours_enabled,
    working_hours: inbox.working_hours,
    timezone: inbox.timezone,
    utc_off_set: utcOffset(inbox.timezone),
    out_of_office_message: inbox.out_of_office_message,
    csat_survey_enabled: inbox.csat_survey_enabled,
    // The help center whose articles the widget shows (Chatwoot's `window.chatwootWebChannel.portal`);
    // null when the inbox names none, or a portal since archived or deleted.
    portal: portal && !portal.archived ? widgetPortalJson(portal) : null,
  };
}

/** What the widget needs of the inbox's portal: where its articles are and in which locales. */
const widgetPortalJson = (p: PortalRecord) => ({
  id: p.id,
  slug: p.slug,
  name: p.name,
  color: p.color,
  custom_domain: p.custom_domain,
  config: { allowed_locales: p.config.allowed_locales, default_locale: p.config.default_locale },
});

// JSON of the widget's chat routes (Chatwoot's `api/v1/widget/*` jbuilder views).

/** A message as the widget reads it; `conversation_id` is the display id. */
export function widgetMessageJson(m: MessageRecord, c: ConversationRecord, refs: Refs, echoId?: string) {
  const sender = senderJson(m, refs);
  return {
    id: m.id,
    content: m.content,
    message_type: m.message_type,
    content_type: m.content_type,
    content_attributes: m.content_attributes,
    created_at: m.created_at,
    conversation_id: c.id,
    status: m.status,
    ...(m.attachments.length ? { attachments: m.attachments.map(attachmentJson) } : {}),
    ...(sender ? { sender } : {}),
    ...(echoId ? { echo_id: echoId } : {}),
  };
}

/** `GET /conversations` and the attribute routes: the visitor's conversation in brief. */
export const widgetConversationJson = (c: ConversationRecord) => ({
  id: c.id,
  inbox_id: c.inbox_id,
  status: c.status,
  contact_last_seen_at: c.contact_last_seen_at ?? 0,
  custom_attributes: c.custom_attributes,
});

/** `POST /conversations`: the new conversation with its first message as the push payload. */
export function widgetNewConversationJson(c: ConversationRecord, m: MessageRecord | undefined, refs: Refs) {
  const assignee = c.assignee_id !== null ? refs.users.get(c.assignee_id) : undefined;
  return {
    id: c.id,
    inbox_id: c.inbox_id,
    contact_last_seen_at: c.contact_last_seen_at ?? 0,
    status: c.status,
    meta: assignee ? { assignee: agentJson(assignee, refs.accountId) } : {},
    messages: m ? [messagePushJson(m, c, refs)] : [],
    muted: false,
    timestamp: c.last_activity_at,
  };
}

/** `GET`/`PATCH /contact`: the visitor as the widget knows it. */
export const widgetContactJson = (c: ContactRecord, ci: ContactInboxRecord) => ({
  id: c.id,
  name: c.name,
  email: c.email,
  phone_number: c.phone_number,
  identifier: c.identifier,
  avatar_url: contactAvatarUrl(c),
  custom_attributes: c.custom_attributes,
  has_email: !!c.email,
  has_name: !!c.name,
  has_phone_number: !!c.phone_number,
  source_id: ci.source_id,
  pubsub_token: ci.pubsub_token,
});
