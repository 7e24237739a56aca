import type { AccountRecord } from '../model.ts';
import type { InboxRecord } from '../inboxes/model.ts';

// JSON of `POST /api/v1/widget/config` (Chatwoot's `api/v1/widget/configs/create.json.jbuilder`).

/** Rails' `formatted_offset` of a time zone now, e.g. `+05:30`. */
export function utcOffset(timezone: string, at = new Date()): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: timezone, timeZoneName: 'longOffset' })
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')?.value;
  return /([+-]\d{2}:\d{2})$/.exec(name ?? '')?.[1] ?? '+00:00';
}

/** The widget's settings, as the widget reads them to draw itself. */
export function widgetChannelJson(inbox: InboxRecord, account: AccountRecord, botName: string | null) {
  return {
    avatar_url: inbox.avatar_url,
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
  };
}
