// Stored inbox record (snake_case, as the API shows it). The channel's attributes live flat on the
// inbox: a channel type that lacks one stores null, which is what the inbox JSON shows (docs/chatwoot.md#inbox-json).

export const CHANNEL_TYPES = {
  web_widget: 'Channel::WebWidget',
  api: 'Channel::Api',
  email: 'Channel::Email',
  line: 'Channel::Line',
  telegram: 'Channel::Telegram',
  whatsapp: 'Channel::Whatsapp',
  sms: 'Channel::Sms',
  /** Twilio SMS and Twilio WhatsApp: created by `POST …/channels/twilio_channel`, not `POST /inboxes`. */
  twilio_sms: 'Channel::TwilioSms',
} as const;

export type ChannelKind = keyof typeof CHANNEL_TYPES;

/** The web widget's features an inbox may enable (`selected_feature_flags`). */
export const FEATURE_FLAGS = ['attachments', 'emoji_picker', 'end_conversation', 'use_inbox_avatar_for_bot'] as const;
/** `Channel::FacebookPage` and `Channel::Instagram` inboxes are made by registering a page or by Instagram's login (docs/channels.md#facebook-messenger), not by `POST /inboxes`. */
export type ChannelType = (typeof CHANNEL_TYPES)[ChannelKind] | 'Channel::FacebookPage' | 'Channel::Instagram';

export interface WorkingHour {
  day_of_week: number;
  closed_all_day: boolean;
  open_hour: number | null;
  open_minutes: number | null;
  close_hour: number | null;
  close_minutes: number | null;
  open_all_day: boolean;
}

export interface InboxRecord {
  id: number;
  account_id: number;
  name: string;
  channel_type: ChannelType;
  channel_id: number;
  avatar_url: string;
  greeting_enabled: boolean;
  greeting_message: string | null;
  enable_email_collect: boolean;
  csat_survey_enabled: boolean;
  csat_config: Record<string, unknown>;
  enable_auto_assignment: boolean;
  auto_assignment_config: Record<string, unknown>;
  working_hours_enabled: boolean;
  out_of_office_message: string | null;
  working_hours: WorkingHour[];
  timezone: string;
  allow_messages_after_resolved: boolean;
  lock_to_single_conversation: boolean;
  portal_id: number | null;
  sender_name_type: 'friendly' | 'professional';
  business_name: string | null;
  agent_bot_id: number | null;

  // Web widget
  website_url: string | null;
  widget_color: string | null;
  website_token: string | null;
  welcome_title: string | null;
  welcome_tagline: string | null;
  reply_time: 'in_a_few_minutes' | 'in_a_few_hours' | 'in_a_day' | null;
  pre_chat_form_enabled: boolean | null;
  pre_chat_form_options: Record<string, unknown> | null;
  continuity_via_email: boolean | null;
  allowed_domains: string | null;
  /** Enabled widget features (`attachments`, `emoji_picker`, `end_conversation`, `use_inbox_avatar_for_bot`). */
  selected_feature_flags: string[] | null;
  // Web widget and API
  hmac_token: string | null;
  hmac_mandatory: boolean | null;
  // API
  webhook_url: string | null;
  /** The API channel's `identifier`: the public interface's `inbox_identifier`. */
  inbox_identifier: string | null;
  additional_attributes: Record<string, unknown> | null;
  // Line, Sms, Whatsapp: where the provider calls us
  callback_webhook_url: string | null;
  // Email
  email: string | null;
  forward_to_email: string | null;
  /** imap_* and smtp_* settings (shown to administrators only). */
  email_settings: Record<string, unknown> | null;
  // Whatsapp, Sms
  phone_number: string | null;
  provider: string | null;
  provider_config: Record<string, unknown> | null;
  messaging_service_sid: string | null;
  medium: string | null;
  /** Whatsapp: the provider's templates, as last synced (Meta's template objects). */
  message_templates?: Record<string, unknown>[] | null;
  message_templates_last_updated?: number | null;
  // Twilio (`Channel::TwilioSms`): the account, its credential (auth token, or an API key and its secret), templates
  account_sid?: string | null;
  auth_token?: string | null;
  api_key_sid?: string | null;
  content_templates?: Record<string, unknown> | null;
  // Line
  line_channel_id: string | null;
  line_channel_secret: string | null;
  line_channel_token: string | null;
  // Telegram
  bot_token: string | null;
  bot_name: string | null;
  // Facebook page (Messenger): the page, its tokens (from the dashboard's Facebook login), the linked Instagram
  // account, and whether Meta refused the token (reauthorization needed).
  page_id?: string | null;
  page_access_token?: string | null;
  user_access_token?: string | null;
  instagram_id?: string | null;
  reauthorization_required?: boolean;
  authorization_error_count?: number;
  // Instagram login (`Channel::Instagram`): the account is `instagram_id`; its long-lived token and when it expires
  // (Unix seconds; refreshed before, docs/channels.md#instagram-login).
  access_token?: string | null;
  expires_at?: number | null;

  created_at: number;
  updated_at: number;
  /** Optimistic concurrency: every write is conditioned on the version read. */
  version: number;
}

/**
 * What account-wide inbox listings need (AP28): report rows (name, channel type), the inboxes a bot answers,
 * contactable inboxes (the slim inbox JSON and Twilio's medium). About 100 bytes, against ~1.6 KB for the inbox.
 */
export const INBOX_SUMMARY_FIELDS = [
  'id',
  'account_id',
  'name',
  'channel_type',
  'channel_id',
  'avatar_url',
  'provider',
  'medium',
  'agent_bot_id',
] as const satisfies readonly (keyof InboxRecord)[];

export type InboxSummary = Pick<InboxRecord, (typeof INBOX_SUMMARY_FIELDS)[number]>;

export const inboxSummaryOf = (i: InboxSummary): InboxSummary => {
  const out: Record<string, unknown> = {};
  for (const f of INBOX_SUMMARY_FIELDS) out[f] = i[f] ?? null;
  return out as InboxSummary;
};

export interface InboxMemberRecord {
  account_id: number;
  inbox_id: number;
  user_id: number;
  created_at: number;
}
