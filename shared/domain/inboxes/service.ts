import { createHash, randomBytes, randomInt } from 'node:crypto';
import { config, mailConfig } from '#shared/config.ts';
import { nextId } from '#shared/db/ids.ts';
import * as keys from '#shared/db/keys.ts';
import type { Key } from '#shared/db/keys.ts';
import { getPortal } from '#shared/db/repositories/help-center.ts';
import { getAgentBot } from '#shared/db/repositories/identity.ts';
import * as repo from '#shared/db/repositories/inboxes.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import type { Actor } from '#shared/model/actor.ts';
import { ServiceError, invalidField, notFound, taken, unprocessable, type ErrorEntry } from '#shared/errors.ts';
import { checkImap, checkSmtp } from '#shared/outbound/mail-servers.ts';
import type { FilePart } from '#shared/model/uploads.ts';
import { parseOrThrow } from '#shared/validate.ts';
import { putObject } from '#shared/storage/objects.ts';
import { storedRef } from '#shared/storage/file-urls.ts';
import { accountAgentBotJson } from '../agent-bots/view.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import { inboxScope, visibleInbox } from './access.ts';
import { CHANNEL_TYPES, type ChannelKind, type InboxRecord, type WorkingHour } from '#shared/model/inboxes.ts';
import { ChannelUpdateSchemas, type InboxUpdate, type NewInbox, type TwilioChannel, type WorkingHourInput } from './schemas.ts';
import { inboxJson } from './view.ts';

// Inboxes (docs/chatwoot.md#inboxes): create per channel type, update, delete, working hours, avatar, agent bot.

const isAdmin = (actor: Actor) => actor.type === 'user' && actor.role === 'administrator';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Rails `has_secure_token`: 24 base58 characters. */
const secureToken = () => Array.from({ length: 24 }, () => BASE58[randomInt(BASE58.length)]).join('');

const kindOf = (i: InboxRecord) => (Object.keys(CHANNEL_TYPES) as ChannelKind[]).find((k) => CHANNEL_TYPES[k] === i.channel_type)!;

// ── working hours (docs/chatwoot.md#working-hours) ──

const closedDay = (day: number): WorkingHour => ({
  day_of_week: day,
  closed_all_day: true,
  open_hour: null,
  open_minutes: null,
  close_hour: null,
  close_minutes: null,
  open_all_day: false,
});

/** Sunday and Saturday closed, weekdays 9:00-17:00. */
export const defaultWorkingHours = (): WorkingHour[] =>
  [0, 1, 2, 3, 4, 5, 6].map((d) =>
    d === 0 || d === 6
      ? closedDay(d)
      : { day_of_week: d, closed_all_day: false, open_hour: 9, open_minutes: 0, close_hour: 17, close_minutes: 0, open_all_day: false },
  );

/** Each row changes the stored day of its `day_of_week`; the merged day must make sense (else 422). */
function mergeWorkingHours(stored: WorkingHour[], rows: WorkingHourInput[]): WorkingHour[] {
  const days = new Map(stored.map((w) => [w.day_of_week, w]));
  const errors: ErrorEntry[] = [];
  rows.forEach((row, index) => {
    // Hours sent without the day flags mean the day is open for those hours.
    const hours = row.open_hour != null || row.close_hour != null;
    const flags = hours ? { closed_all_day: row.closed_all_day ?? false, open_all_day: row.open_all_day ?? false } : {};
    const merged = { ...(days.get(row.day_of_week) ?? closedDay(row.day_of_week)), ...row, ...flags };
    const field = (name: string) => `working_hours[${index}].${name}`;
    let day: WorkingHour;
    if (merged.open_all_day && merged.closed_all_day) {
      errors.push({ field: field('open_all_day'), message: 'cannot be set together with closed_all_day', code: 'invalid' });
      return;
    } else if (merged.open_all_day) {
      day = { ...merged, closed_all_day: false, open_hour: 0, open_minutes: 0, close_hour: 23, close_minutes: 59 };
    } else if (merged.closed_all_day) {
      day = { ...closedDay(row.day_of_week) };
    } else {
      day = { ...merged, open_minutes: merged.open_minutes ?? 0, close_minutes: merged.close_minutes ?? 0 };
      if (day.open_hour === null || day.close_hour === null) {
        const missing = day.open_hour === null ? 'open_hour' : 'close_hour';
        errors.push({ field: field(missing), message: 'is required unless the day is closed or open all day', code: 'required' });
        return;
      }
      if (day.open_hour * 60 + day.open_minutes! >= day.close_hour * 60 + day.close_minutes!) {
        errors.push({ field: field('close_hour'), message: 'must be after the opening time', code: 'invalid' });
        return;
      }
    }
    days.set(row.day_of_week, day);
  });
  if (errors.length) throw unprocessable(errors);
  return [...days.values()].sort((a, b) => a.day_of_week - b.day_of_week);
}

// ── channel attributes ──

const EMAIL_SETTINGS = /^(imap_|smtp_|verified_for_sending$)/;

/** Copies the channel fields a body sent onto the record and recomputes what derives from them. */
function applyChannel(i: InboxRecord, kind: ChannelKind, fields: Record<string, unknown>): InboxRecord {
  const out: InboxRecord = { ...i };
  const record = out as unknown as Record<string, unknown>;
  for (const [k, value] of Object.entries(fields)) {
    if (k === 'type' || value === undefined) continue;
    if (kind === 'email' && EMAIL_SETTINGS.test(k)) out.email_settings = { ...out.email_settings, [k]: value };
    else record[k] = k === 'webhook_url' && value === '' ? null : value;
  }
  // Chatwoot builds the callback URLs it gives providers from FRONTEND_URL.
  const base = config().frontendUrl;
  if (kind === 'line') out.callback_webhook_url = `${base}/webhooks/line/${out.line_channel_id}`;
  if (kind === 'whatsapp') out.callback_webhook_url = `${base}/webhooks/whatsapp/${out.phone_number}`;
  if (kind === 'sms') out.callback_webhook_url = `${base}/webhooks/sms/${out.phone_number!.replace(/\D/g, '')}`;
  if (kind === 'twilio_sms') out.callback_webhook_url = `${base}/twilio/callback`;
  if (kind === 'whatsapp' && out.provider === 'whatsapp_cloud' && !out.provider_config?.webhook_verify_token) {
    out.provider_config = { ...out.provider_config, webhook_verify_token: secureToken() };
  }
  return out;
}

/** Chatwoot's `forward_to_email`: 32 random hex characters at the inbound domain (none without a domain). */
function forwardToEmail(): string | null {
  const domain = mailConfig().inboundMail.domain;
  return domain ? `${randomBytes(16).toString('hex')}@${domain}` : null;
}

/**
 * Chatwoot's live check when an update turns IMAP or SMTP on (or changes them while on): a login to each; a
 * failure is a 422 with the server's reason as `message`, and nothing is saved.
 */
async function checkMailServers(settings: Record<string, unknown> | null, changed: Record<string, unknown>) {
  if (!settings) return;
  const touches = (prefix: string) => Object.keys(changed).some((k) => k.startsWith(prefix));
  const checks: [string, Promise<string | undefined>][] = [];
  if (settings.imap_enabled === true && touches('imap_')) checks.push(['channel.imap_enabled', checkImap(settings)]);
  if (settings.smtp_enabled === true && touches('smtp_')) checks.push(['channel.smtp_enabled', checkSmtp(settings)]);
  for (const [field, check] of checks) {
    const failure = await check;
    if (failure)
      throw new ServiceError('invalid', failure, [{ field, message: failure, code: 'connection_failed' }], undefined, { message: failure });
  }
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/**
 * How a Telegram inbox is found (docs/channels.md#telegram): by its whole bot token (hashed; Chatwoot's webhook
 * path) and by its bot's id (the token's part before the colon; the path the service registers).
 */
export const telegramKeys = {
  token: (botToken: string) => sha256(botToken),
  bot: (botId: string) => `bot:${botId}`,
};

/** The installation-wide unique values an inbox holds, each with the field a clash names. */
export function sentinelsOf(i: InboxRecord): repo.InboxSentinel[] {
  const s = (key: Key, field: string): repo.InboxSentinel => ({ key, onConflict: () => taken(field) });
  const out: repo.InboxSentinel[] = [];
  if (i.inbox_identifier) out.push(s(keys.inboxIdentifierUnique(i.inbox_identifier), 'channel.identifier'));
  if (i.website_token) out.push(s(keys.websiteTokenUnique(i.website_token), 'channel.website_token'));
  if (i.channel_type === 'Channel::Email' && i.email) out.push(s(keys.channelUnique('EMAIL', i.email.toLowerCase()), 'channel.email'));
  if (i.channel_type === 'Channel::Email' && i.forward_to_email)
    out.push(s(keys.channelUnique('EMAIL_FORWARD', i.forward_to_email.toLowerCase()), 'channel.forward_to_email'));
  if (i.channel_type === 'Channel::Line' && i.line_channel_id)
    out.push(s(keys.channelUnique('LINE', i.line_channel_id), 'channel.line_channel_id'));
  if (i.channel_type === 'Channel::Telegram' && i.bot_token) {
    out.push(s(keys.channelUnique('TELEGRAM', telegramKeys.token(i.bot_token)), 'channel.bot_token'));
    out.push(s(keys.channelUnique('TELEGRAM', telegramKeys.bot(i.bot_token.split(':')[0])), 'channel.bot_token'));
  }
  if (i.channel_type === 'Channel::Whatsapp' && i.phone_number)
    out.push(s(keys.channelUnique('WHATSAPP', i.phone_number), 'channel.phone_number'));
  if (i.channel_type === 'Channel::Sms' && i.phone_number) out.push(s(keys.channelUnique('SMS', i.phone_number), 'channel.phone_number'));
  // Twilio's webhooks name the messaging service, else the number: each belongs to one inbox (Chatwoot's unique indexes).
  if (i.channel_type === 'Channel::TwilioSms' && i.messaging_service_sid)
    out.push(s(keys.channelUnique('TWILIO', i.messaging_service_sid), 'messaging_service_sid'));
  if (i.channel_type === 'Channel::TwilioSms' && i.phone_number) out.push(s(keys.channelUnique('TWILIO', i.phone_number), 'phone_number'));
  // A page's webhooks name the page: one inbox a page across the installation (Chatwoot: one an account).
  if (i.channel_type === 'Channel::FacebookPage' && i.page_id) out.push(s(keys.channelUnique('FACEBOOK', i.page_id), 'page_id'));
  // Its linked Instagram account's webhooks name that account.
  if (i.channel_type === 'Channel::FacebookPage' && i.instagram_id)
    out.push(s(keys.channelUnique('INSTAGRAM', i.instagram_id), 'instagram_id'));
  // An Instagram-login inbox: its account's webhooks name it (apart from a page's linked account, which Chatwoot
  // matches second).
  if (i.channel_type === 'Channel::Instagram' && i.instagram_id)
    out.push(s(keys.channelUnique('INSTAGRAM_LOGIN', i.instagram_id), 'instagram_id'));
  return out;
}

/** Sentinels to delete and to write when an inbox changes from `before` to `after`. */
function sentinelChanges(before: InboxRecord, after: InboxRecord) {
  const [was, is] = [sentinelsOf(before), sentinelsOf(after)];
  const idsOf = (list: repo.InboxSentinel[]) => new Set(list.map((x) => `${x.key.pk}|${x.key.sk}`));
  const [wasIds, isIds] = [idsOf(was), idsOf(is)];
  return {
    removed: was.filter((x) => !isIds.has(`${x.key.pk}|${x.key.sk}`)).map((x) => x.key),
    added: is.filter((x) => !wasIds.has(`${x.key.pk}|${x.key.sk}`)),
  };
}

// ── avatar ──

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

async function storeAvatar(accountId: number, inboxId: number, file: FilePart): Promise<string> {
  const type = file.content_type.toLowerCase();
  const key = `avatars/inboxes/${accountId}/${inboxId}/${randomBytes(12).toString('hex')}.${EXTENSIONS[type]}`;
  await putObject(key, file.data, type);
  return storedRef(key);
}

// ── use cases ──

type TopLevel = Omit<NewInbox, 'channel' | 'avatar' | 'working_hours' | 'name'>;

/** Top-level attributes the body sent (absent ones keep the record's value). */
/** The help center whose articles the web widget shows may be a portal of this account only. */
const portalAllowed = async (accountId: number, portalId: number | null | undefined) =>
  typeof portalId !== 'number' || !!(await getPortal(accountId, portalId));
const foreignPortal = () => invalidField('portal_id', 'must be a portal of this account', 'not_found');

function topLevel(input: TopLevel): Partial<InboxRecord> {
  const out: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(input)) if (value !== undefined) out[k] = value;
  return out as Partial<InboxRecord>;
}

export async function listInboxesFor(account: AccountRecord, actor: Actor) {
  const [inboxes, scope] = await Promise.all([repo.listInboxes(account.id), inboxScope(account.id, actor)]);
  const visible = scope === 'all' ? inboxes : inboxes.filter((i) => scope.has(i.id));
  visible.sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.id - b.id);
  return { payload: visible.map((i) => inboxJson(i, isAdmin(actor))) };
}

export async function showInbox(account: AccountRecord, actor: Actor, id: number) {
  return inboxJson(await visibleInbox(account.id, actor, id), isAdmin(actor));
}

async function checkInboxLimit(account: AccountRecord) {
  const limit = account.limits?.inboxes;
  if (typeof limit !== 'number') return;
  if ((await repo.listInboxSummaries(account.id)).length >= limit) {
    throw new ServiceError('payment_required', 'Account limit exceeded. Upgrade to a higher plan', [
      { field: '', message: `The account may have at most ${limit} inboxes`, code: 'limit_exceeded' },
    ]);
  }
}

/**
 * The provider's side of a channel inbox (shared/channels/setup.ts, given by the function: the domain knows no
 * provider): the inbox as it is to be stored (Telegram: named after its bot, its webhook registered), or a
 * ServiceError; nothing is stored then.
 */
export type ChannelSetup = (inbox: InboxRecord, before?: InboxRecord) => Promise<InboxRecord>;

export async function createInbox(account: AccountRecord, input: NewInbox, setup?: ChannelSetup) {
  const { channel, avatar, working_hours, name, ...rest } = input;
  return makeInbox(account, { ...rest, name }, channel.type as ChannelKind, channel, avatar, working_hours, setup);
}

/**
 * `POST /channels/twilio_channel`: a Twilio SMS or WhatsApp inbox (Chatwoot's TwilioChannelsController). A WhatsApp
 * medium stores its number as `whatsapp:+…`; the provider check (the room's `setup`) answers Chatwoot's 422 on a refusal.
 */
export async function createTwilioInbox(account: AccountRecord, input: TwilioChannel, setup?: ChannelSetup) {
  const phone = input.phone_number ? (input.medium === 'whatsapp' ? `whatsapp:${input.phone_number}` : input.phone_number) : null;
  return makeInbox(
    account,
    { name: input.name },
    'twilio_sms',
    {
      medium: input.medium,
      account_sid: input.account_sid,
      auth_token: input.auth_token,
      api_key_sid: input.api_key_sid || null,
      messaging_service_sid: input.messaging_service_sid || null,
      phone_number: phone,
      content_templates: { templates: [] },
    },
    undefined,
    undefined,
    setup,
  );
}

async function makeInbox(
  account: AccountRecord,
  input: Omit<NewInbox, 'channel' | 'avatar' | 'working_hours'>,
  kind: ChannelKind,
  channel: Record<string, unknown>,
  avatar: NewInbox['avatar'],
  working_hours: NewInbox['working_hours'],
  setup: ChannelSetup | undefined,
) {
  const { name, ...rest } = input;
  const telegramName = kind === 'telegram' ? `telegram_bot_${String(channel.bot_token).split(':')[0]}` : undefined;
  const inboxName = name ?? telegramName;
  if (!inboxName) throw unprocessable([{ field: 'name', message: 'is required', code: 'required' }]);
  const [, portalOk] = await Promise.all([checkInboxLimit(account), portalAllowed(account.id, rest.portal_id)]);
  if (!portalOk) throw foreignPortal();

  const [id, channelId] = await Promise.all([nextId('inbox'), nextId('channel')]);
  const at = now();
  const widget = kind === 'web_widget';
  let inbox: InboxRecord = {
    id,
    account_id: account.id,
    name: inboxName,
    channel_type: CHANNEL_TYPES[kind],
    channel_id: channelId,
    avatar_url: '',
    greeting_enabled: false,
    greeting_message: null,
    enable_email_collect: true,
    csat_survey_enabled: false,
    csat_config: {},
    enable_auto_assignment: true,
    auto_assignment_config: {},
    working_hours_enabled: false,
    out_of_office_message: null,
    working_hours: defaultWorkingHours(),
    timezone: 'UTC',
    allow_messages_after_resolved: true,
    lock_to_single_conversation: false,
    portal_id: null,
    sender_name_type: 'friendly',
    business_name: null,
    agent_bot_id: null,
    website_url: null,
    widget_color: widget ? '#1f93ff' : null,
    website_token: widget ? secureToken() : null,
    welcome_title: null,
    welcome_tagline: null,
    reply_time: widget ? 'in_a_few_minutes' : null,
    pre_chat_form_enabled: widget ? false : null,
    pre_chat_form_options: widget
      ? {
          pre_chat_message: 'Share your queries or comments here.',
          pre_chat_fields: [
            { field_type: 'standard', label: 'Email Id', name: 'emailAddress', type: 'email', required: true, enabled: false },
            { field_type: 'standard', label: 'Full name', name: 'fullName', type: 'text', required: false, enabled: false },
            { field_type: 'standard', label: 'Phone number', name: 'phoneNumber', type: 'text', required: false, enabled: false },
          ],
        }
      : null,
    continuity_via_email: widget ? true : null,
    allowed_domains: widget ? '' : null,
    selected_feature_flags: widget ? ['attachments', 'emoji_picker', 'end_conversation'] : null,
    hmac_token: widget || kind === 'api' ? secureToken() : null,
    hmac_mandatory: widget || kind === 'api' ? false : null,
    webhook_url: null,
    inbox_identifier: kind === 'api' ? secureToken() : null,
    additional_attributes: kind === 'api' ? {} : null,
    callback_webhook_url: null,
    email: null,
    forward_to_email: kind === 'email' ? forwardToEmail() : null,
    email_settings: kind === 'email' ? { imap_enabled: false, smtp_enabled: false } : null,
    phone_number: null,
    provider: kind === 'whatsapp' || kind === 'sms' ? 'default' : null,
    provider_config: kind === 'whatsapp' || kind === 'sms' ? {} : null,
    messaging_service_sid: null,
    medium: null,
    line_channel_id: null,
    line_channel_secret: null,
    line_channel_token: null,
    bot_token: null,
    bot_name: kind === 'telegram' ? inboxName : null,
    created_at: at,
    updated_at: at,
    version: 1,
    ...topLevel(rest),
  };
  inbox = applyChannel(inbox, kind, channel);
  if (working_hours) inbox.working_hours = mergeWorkingHours(inbox.working_hours, working_hours);
  if (setup) inbox = await setup(inbox);
  if (avatar) inbox.avatar_url = await storeAvatar(account.id, id, avatar);
  await repo.createInbox(inbox, sentinelsOf(inbox));
  return inboxJson(inbox, true);
}

export async function updateInbox(account: AccountRecord, id: number, input: InboxUpdate, setup?: ChannelSetup) {
  const { channel, avatar, working_hours, name, ...rest } = input;
  const [found, portalOk] = await Promise.all([repo.getInbox(account.id, id), portalAllowed(account.id, rest.portal_id)]);
  if (!found) throw notFound('Inbox');
  if (!portalOk) throw foreignPortal();
  const kind = kindOf(found);
  // A Facebook page's channel fields are its tokens, set by registering or reauthorizing the page.
  const channelFields = channel && kind ? parseOrThrow(ChannelUpdateSchemas[kind], channel, 'channel') : undefined;
  if (kind === 'email' && channelFields) await checkMailServers(applyChannel(found, kind, channelFields).email_settings, channelFields);
  const avatarUrl = avatar ? await storeAvatar(account.id, id, avatar) : avatar === null ? '' : undefined;

  if (!channelFields && !working_hours) {
    // Settings Chatwoot replaces as sent, none of them unique: applied on the stored item, so
    // concurrent changes never conflict (the last writer wins a field).
    const set: Record<string, unknown> = { ...topLevel(rest), updated_at: now() };
    if (name !== undefined) set.name = name;
    if (kind === 'telegram' && name !== undefined) set.bot_name = name;
    if (avatarUrl !== undefined) set.avatar_url = avatarUrl;
    const saved = await repo.changeInboxAttributes(account.id, id, { set });
    if (!saved) throw notFound('Inbox');
    return inboxJson(saved, true);
  }

  const saved = await retryStale(async (consistent) => {
    const before = consistent ? await repo.getInbox(account.id, id, true) : found;
    if (!before) throw notFound('Inbox');
    let after: InboxRecord = { ...before, ...topLevel(rest), updated_at: now(), version: before.version + 1 };
    if (name !== undefined) after.name = name;
    if (kind === 'telegram' && name !== undefined) after.bot_name = name;
    if (channelFields) after = applyChannel(after, kind, channelFields);
    if (kind === 'email' && !after.forward_to_email) after.forward_to_email = forwardToEmail();
    if (channelFields && setup) after = await setup(after, before);
    if (working_hours) after.working_hours = mergeWorkingHours(before.working_hours, working_hours);
    if (avatarUrl !== undefined) after.avatar_url = avatarUrl;
    const { removed, added } = sentinelChanges(before, after);
    await repo.updateInbox(before, after, removed, added);
    return after;
  });
  return inboxJson(saved, true);
}

export async function deleteInboxAvatar(account: AccountRecord, id: number) {
  await retryStale(async (consistent) => {
    const before = await repo.getInbox(account.id, id, consistent);
    if (!before) throw notFound('Inbox');
    await repo.updateInbox(before, { ...before, avatar_url: '', updated_at: now(), version: before.version + 1 });
  });
}

/** Chatwoot deletes in a background job; here the inbox and its memberships go at once. */
export async function deleteInbox(account: AccountRecord, id: number) {
  await retryStale(async (consistent) => {
    const inbox = await repo.getInbox(account.id, id, consistent);
    if (!inbox) throw notFound('Inbox');
    const revoke = inbox.agent_bot_id !== null ? await unusedBotAccess(account.id, inbox.agent_bot_id, inbox.id) : [];
    await repo.deleteInbox(inbox, [...sentinelsOf(inbox).map((s) => s.key), ...revoke]);
  });
  return { message: 'Your inbox deletion request will be processed in some time.' };
}

// ── agent bot (docs/chatwoot.md#agent-bot-of-an-inbox) ──

/** The bot's access item, when no other inbox of the account still uses the bot. */
async function unusedBotAccess(accountId: number, botId: number, inboxId: number): Promise<Key[]> {
  const others = (await repo.listInboxSummaries(accountId)).filter((i) => i.id !== inboxId && i.agent_bot_id === botId);
  return others.length ? [] : [keys.agentBotAccess(accountId, botId)];
}

export async function showInboxAgentBot(account: AccountRecord, actor: Actor, id: number) {
  const inbox = await visibleInbox(account.id, actor, id);
  const bot = inbox.agent_bot_id !== null ? await getAgentBot(inbox.agent_bot_id) : undefined;
  return { agent_bot: bot ? accountAgentBotJson(bot, undefined) : {} };
}

/**
 * Attaches the account's own bot or a system bot (null or "" detaches). A system bot gets the account's
 * bot access item, so that its token may act here; the item goes when no inbox uses the bot any more.
 */
export async function setInboxAgentBot(account: AccountRecord, id: number, botId: number | null) {
  const bot = botId !== null ? await getAgentBot(botId) : undefined;
  if (botId !== null && (!bot || (bot.account_id !== account.id && bot.account_id !== null))) throw notFound('Agent bot');
  await retryStale(async (consistent) => {
    const before = await repo.getInbox(account.id, id, consistent);
    if (!before) throw notFound('Inbox');
    const previous = before.agent_bot_id;
    const grant = bot && bot.account_id !== account.id ? keys.agentBotAccess(account.id, bot.id) : undefined;
    const revoke = previous !== null && previous !== botId ? await unusedBotAccess(account.id, previous, id) : [];
    const after: InboxRecord = { ...before, agent_bot_id: botId, updated_at: now(), version: before.version + 1 };
    await repo.setInboxAgentBot(before, after, grant, revoke);
  });
}

/**
 * `POST /inboxes/{id}/sync_templates` (Chatwoot's InboxesController#sync_templates): the provider's templates,
 * fetched now and stored on the inbox; 422 for an inbox whose channel has no templates.
 */
export async function syncInboxTemplates(
  account: AccountRecord,
  id: number,
  sync: (inbox: InboxRecord) => Promise<Partial<InboxRecord> | undefined>,
) {
  const inbox = await repo.getInbox(account.id, id);
  if (!inbox) throw notFound('Inbox');
  const changes = await sync(inbox);
  if (!changes) {
    throw new ServiceError('invalid', 'Template sync is only available for WhatsApp channels', [
      { field: '', message: 'Template sync is only available for WhatsApp channels', code: 'invalid' },
    ]);
  }
  await repo.changeInboxAttributes(account.id, id, { set: { ...changes, updated_at: now() } });
  return { message: 'Template sync initiated successfully' };
}
