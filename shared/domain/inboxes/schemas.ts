import * as v from 'valibot';
import { FEATURE_FLAGS } from '#shared/model/inboxes.ts';
import { isUploadedFile, type FilePart } from '#shared/model/uploads.ts';
import { Bool, Email, HttpUrl, Id, JsonArray, JsonObject, RequiredText, Text } from '../schemas.ts';

// Inbox bodies (docs/contract.md#inbox-create-payload, docs/chatwoot.md#creating-and-updating-an-inbox). Multipart
// clients send every value as a string, so numbers and booleans accept their string forms, and arrays their JSON.

const Int = (min: number, max: number) =>
  v.pipe(
    v.union([v.number(), v.pipe(v.string(), v.regex(/^-?\d{1,9}$/), v.transform(Number))], `must be an integer between ${min} and ${max}`),
    v.integer(`must be an integer between ${min} and ${max}`),
    v.minValue(min, `must be an integer between ${min} and ${max}`),
    v.maxValue(max, `must be an integer between ${min} and ${max}`),
  );

/** "null" (Chatwoot's inbox controller turns top-level "null" strings into null) or empty means none. */
const nullStrings = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, x]) => [k, x === 'null' ? null : x]));

const TIMEZONES = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC', 'GMT']);

/** IANA names, canonical or aliases (`US/Eastern`), as TZInfo takes them. */
export const isTimezone = (tz: string) => {
  if (TIMEZONES.has(tz)) return true;
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(tz)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

const Timezone = v.pipe(v.string('must be a string'), v.trim(), v.check(isTimezone, 'is not a valid time zone'));

// Bounds per field here; the consistency of a day (open before close, not open and closed all day)
// is checked by the service after merging with the stored day, as an update may send only part of it.
const WorkingHourSchema = v.object({
  day_of_week: Int(0, 6),
  closed_all_day: v.optional(Bool),
  open_all_day: v.optional(Bool),
  open_hour: v.optional(v.nullable(Int(0, 23))),
  open_minutes: v.optional(v.nullable(Int(0, 59))),
  close_hour: v.optional(v.nullable(Int(0, 23))),
  close_minutes: v.optional(v.nullable(Int(0, 59))),
});
export type WorkingHourInput = v.InferOutput<typeof WorkingHourSchema>;

const WorkingHours = v.pipe(
  JsonArray(WorkingHourSchema),
  v.check((ws) => new Set(ws.map((w) => w.day_of_week)).size === ws.length, 'lists a day_of_week twice'),
);

const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
// API Gateway hands binary bodies to Lambda base64-encoded (4/3 larger) and a Lambda request may not
// exceed 6 MB, so an upload body stays below ~4.4 MiB.
export const MAX_AVATAR_BYTES = 4 * 1024 * 1024;
/** Upload routes take bodies up to this size: a 4 MiB avatar and the multipart around it. */
export const MAX_UPLOAD_BODY_BYTES = MAX_AVATAR_BYTES + 256 * 1024;

const Avatar = v.pipe(
  v.custom<FilePart>(isUploadedFile, 'must be an uploaded image file'),
  v.check((f) => AVATAR_TYPES.includes(f.content_type.toLowerCase()), 'must be a PNG, JPEG, GIF or WebP image'),
  v.check((f) => f.size > 0, 'is empty'),
  v.check((f) => f.size <= MAX_AVATAR_BYTES, 'is larger than 4 MB'),
);

const HexColor = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.regex(/^#([0-9a-f]{3}|[0-9a-f]{6})$/i, 'must be a hex colour like #1f93ff'),
);
const Phone = v.pipe(v.string('must be a string'), v.trim(), v.regex(/^\+[1-9]\d{1,14}$/, 'must be in E.164 format, like +14155550100'));

/** `selected_feature_flags[]` names, or an object of flag → boolean; stored as the enabled names. */
const FeatureFlags = v.union(
  [
    JsonArray(v.picklist(FEATURE_FLAGS, `must be among ${FEATURE_FLAGS.join(', ')}`)),
    v.pipe(
      v.record(v.picklist(FEATURE_FLAGS, `must be among ${FEATURE_FLAGS.join(', ')}`), Bool),
      v.transform((o) => FEATURE_FLAGS.filter((f) => o[f])),
    ),
  ],
  `must list flags among ${FEATURE_FLAGS.join(', ')}`,
);

const AdditionalAttributes = v.pipe(
  JsonObject,
  v.check((o) => {
    const w = o.agent_reply_time_window;
    return w === undefined || w === null || (Number.isInteger(Number(w)) && Number(w) > 0);
  }, 'agent_reply_time_window must be a positive integer (hours)'),
);

const opt = <S extends v.GenericSchema>(s: S) => v.optional(s);
const optNull = <S extends v.GenericSchema>(s: S) => v.optional(v.nullable(s));

// Fields each channel type accepts (Chatwoot's EDITABLE_ATTRS); all optional, for update.
const channelFields = {
  web_widget: {
    website_url: opt(RequiredText(255)),
    widget_color: opt(HexColor),
    welcome_title: optNull(Text(255)),
    welcome_tagline: optNull(Text(255)),
    reply_time: opt(v.picklist(['in_a_few_minutes', 'in_a_few_hours', 'in_a_day'], 'must be in_a_few_minutes, in_a_few_hours or in_a_day')),
    pre_chat_form_enabled: opt(Bool),
    pre_chat_form_options: opt(JsonObject),
    continuity_via_email: opt(Bool),
    hmac_mandatory: opt(Bool),
    allowed_domains: optNull(Text(2000)),
    selected_feature_flags: opt(FeatureFlags),
  },
  api: {
    webhook_url: optNull(v.union([v.literal(''), HttpUrl], 'must be an http or https URL')),
    hmac_mandatory: opt(Bool),
    additional_attributes: opt(AdditionalAttributes),
  },
  email: {
    email: opt(Email),
    provider: optNull(Text(50)),
    verified_for_sending: opt(Bool),
    imap_enabled: opt(Bool),
    imap_login: optNull(Text(255)),
    imap_password: optNull(Text(255)),
    imap_address: optNull(Text(255)),
    imap_port: optNull(Int(1, 65535)),
    imap_enable_ssl: opt(Bool),
    smtp_enabled: opt(Bool),
    smtp_login: optNull(Text(255)),
    smtp_password: optNull(Text(255)),
    smtp_address: optNull(Text(255)),
    smtp_port: optNull(Int(1, 65535)),
    smtp_domain: optNull(Text(255)),
    smtp_enable_ssl_tls: opt(Bool),
    smtp_enable_starttls_auto: opt(Bool),
    smtp_openssl_verify_mode: optNull(Text(50)),
    smtp_authentication: optNull(Text(50)),
  },
  line: {
    line_channel_id: opt(RequiredText(255)),
    line_channel_secret: opt(RequiredText(255)),
    line_channel_token: opt(RequiredText(1000)),
  },
  telegram: {
    bot_token: opt(v.pipe(RequiredText(255), v.regex(/^\d+:[\w-]+$/, 'is not a Telegram bot token'))),
  },
  whatsapp: {
    phone_number: opt(Phone),
    provider: opt(v.picklist(['default', 'whatsapp_cloud'], 'must be default or whatsapp_cloud')),
    provider_config: opt(JsonObject),
  },
  sms: {
    phone_number: opt(Phone),
    provider_config: opt(JsonObject),
  },
  // Twilio's numbers and credentials are set when the channel is connected (TwilioChannelSchema) and checked then.
  twilio_sms: {},
};

/** What `channel` may change on update, per the inbox's (fixed) channel type. */
export const ChannelUpdateSchemas = Object.fromEntries(Object.entries(channelFields).map(([kind, fields]) => [kind, v.object(fields)])) as {
  [K in keyof typeof channelFields]: v.ObjectSchema<(typeof channelFields)[K], undefined>;
};

const required = <S extends v.GenericSchema>(s: v.OptionalSchema<S, undefined>) => s.wrapped;

const NewChannelSchema = v.variant(
  'type',
  [
    v.object({ ...channelFields.web_widget, type: v.literal('web_widget'), website_url: required(channelFields.web_widget.website_url) }),
    v.object({ ...channelFields.api, type: v.literal('api') }),
    v.object({ ...channelFields.email, type: v.literal('email'), email: required(channelFields.email.email) }),
    v.object({
      type: v.literal('line'),
      line_channel_id: required(channelFields.line.line_channel_id),
      line_channel_secret: required(channelFields.line.line_channel_secret),
      line_channel_token: required(channelFields.line.line_channel_token),
    }),
    v.object({ type: v.literal('telegram'), bot_token: required(channelFields.telegram.bot_token) }),
    v.object({ ...channelFields.whatsapp, type: v.literal('whatsapp'), phone_number: required(channelFields.whatsapp.phone_number) }),
    v.object({ ...channelFields.sms, type: v.literal('sms'), phone_number: required(channelFields.sms.phone_number) }),
  ],
  'must be one of web_widget, api, email, line, telegram, whatsapp, sms',
);

const inboxFields = {
  // Blank (`""`, null) removes the avatar, as Rails' ActiveStorage does for an attachment assigned blank.
  avatar: optNull(Avatar),
  greeting_enabled: opt(Bool),
  greeting_message: optNull(Text(10_000)),
  enable_email_collect: opt(Bool),
  csat_survey_enabled: opt(Bool),
  csat_config: opt(JsonObject),
  enable_auto_assignment: opt(Bool),
  auto_assignment_config: opt(JsonObject),
  working_hours_enabled: opt(Bool),
  out_of_office_message: optNull(Text(10_000)),
  working_hours: opt(WorkingHours),
  timezone: opt(Timezone),
  allow_messages_after_resolved: opt(Bool),
  lock_to_single_conversation: opt(Bool),
  portal_id: optNull(Id),
  sender_name_type: opt(v.picklist(['friendly', 'professional'], 'must be friendly or professional')),
  business_name: optNull(Text(255)),
};

const Body = v.pipe(v.record(v.string(), v.unknown()), v.transform(nullStrings));

export const NewInboxSchema = v.pipe(
  Body,
  v.object({
    ...inboxFields,
    // Telegram inboxes are named after the bot, so the name is optional there (checked by the service).
    name: opt(RequiredText(255)),
    channel: v.pipe(v.union([v.record(v.string(), v.unknown()), v.pipe(v.string(), v.parseJson())], 'must be an object'), NewChannelSchema),
  }),
);
export type NewInbox = v.InferOutput<typeof NewInboxSchema>;

export const InboxUpdateSchema = v.pipe(
  Body,
  v.object({
    ...inboxFields,
    name: opt(RequiredText(255)),
    channel: opt(JsonObject),
  }),
);
export type InboxUpdate = v.InferOutput<typeof InboxUpdateSchema>;

/** `POST /channels/twilio_channel` (Chatwoot's TwilioChannelsController): `twilio_channel: {…}` or top level. */
export const TwilioChannelSchema = v.pipe(
  v.object({
    name: RequiredText(255),
    medium: v.optional(v.picklist(['sms', 'whatsapp'], 'must be sms or whatsapp'), 'sms'),
    account_sid: v.pipe(RequiredText(64), v.regex(/^AC\w+$/, 'is not a Twilio account SID')),
    auth_token: RequiredText(255),
    api_key_sid: optNull(v.pipe(Text(64), v.regex(/^(SK\w+)?$/, 'is not a Twilio API key SID'))),
    messaging_service_sid: optNull(v.pipe(Text(64), v.regex(/^(MG\w+)?$/, 'is not a Twilio messaging service SID'))),
    phone_number: optNull(v.union([v.literal(''), Phone], 'must be in E.164 format, like +14155550100')),
  }),
  v.check((b) => !!b.messaging_service_sid !== !!b.phone_number, 'needs exactly one of messaging_service_sid and phone_number'),
);
export type TwilioChannel = v.InferOutput<typeof TwilioChannelSchema>;
