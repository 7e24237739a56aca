import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overrideEnv } from '../../support/env.ts';
import { startFakeProvider, type FakeProvider } from '../../support/providers.ts';
import { expectErrorBody, runtime, seedAccount, unique, type SeededAccount, fieldsOf } from '../../support/runtime.ts';
import { streamChanges } from '../../support/stream.ts';
import { findInboxByIdentifier } from '#shared/db/repositories/inboxes.ts';

// Inboxes (docs/contract.md#inbox, contract endpoints 1-2; docs/chatwoot.md#inboxes), as a Chatwoot client calls
// them.

const STR_OR_NULL = (x: unknown) => x === null || typeof x === 'string';

/**
 * Every field of the contract's inbox, with its type (null where the channel lacks it, docs/chatwoot.md#inbox-json).
 */
function expectInboxShape(i: Record<string, any>) {
  const types: Record<string, 'number' | 'string' | 'boolean' | 'object' | 'string?'> = {
    id: 'number',
    name: 'string',
    website_url: 'string?',
    channel_type: 'string',
    avatar_url: 'string',
    widget_color: 'string?',
    website_token: 'string?',
    enable_auto_assignment: 'boolean',
    web_widget_script: 'string?',
    welcome_title: 'string?',
    welcome_tagline: 'string?',
    greeting_enabled: 'boolean',
    greeting_message: 'string?',
    channel_id: 'number',
    working_hours_enabled: 'boolean',
    enable_email_collect: 'boolean',
    csat_survey_enabled: 'boolean',
    auto_assignment_config: 'object',
    out_of_office_message: 'string?',
    timezone: 'string',
    callback_webhook_url: 'string?',
    allow_messages_after_resolved: 'boolean',
    lock_to_single_conversation: 'boolean',
    sender_name_type: 'string',
    business_name: 'string?',
    selected_feature_flags: 'object',
    reply_time: 'string?',
    messaging_service_sid: 'string?',
    phone_number: 'string?',
    medium: 'string?',
    provider: 'string?',
  };
  for (const [field, type] of Object.entries(types)) {
    expect(field in i, field).toBe(true);
    if (type === 'string?') expect(STR_OR_NULL(i[field]), field).toBe(true);
    else if (type === 'object') expect(i[field] !== null && typeof i[field] === 'object' && !Array.isArray(i[field]), field).toBe(true);
    else expect(typeof i[field], field).toBe(type);
  }
  expect(typeof i.hmac_mandatory === 'boolean' || i.hmac_mandatory === null).toBe(true);
  expect(Number.isInteger(i.id) && Number.isInteger(i.channel_id)).toBe(true);
  expect(i.working_hours).toHaveLength(7);
  i.working_hours.forEach((w: Record<string, unknown>, day: number) => {
    expect(w).toMatchObject({ day_of_week: day, closed_all_day: expect.any(Boolean), open_all_day: expect.any(Boolean) });
    for (const k of ['open_hour', 'open_minutes', 'close_hour', 'close_minutes'])
      expect(w[k] === null || Number.isInteger(w[k]), k).toBe(true);
  });
}

const DEFAULT_HOURS = [
  { day_of_week: 0, closed_all_day: true, open_hour: null, open_minutes: null, close_hour: null, close_minutes: null, open_all_day: false },
  ...[1, 2, 3, 4, 5].map((d) => ({
    day_of_week: d,
    closed_all_day: false,
    open_hour: 9,
    open_minutes: 0,
    close_hour: 17,
    close_minutes: 0,
    open_all_day: false,
  })),
  { day_of_week: 6, closed_all_day: true, open_hour: null, open_minutes: null, close_hour: null, close_minutes: null, open_all_day: false },
];

describe('inboxes', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  // Telegram inboxes ask the Bot API for their bot and register their webhook (docs/channels.md#telegram).
  let telegramApi: FakeProvider;
  let restoreEnv: () => void;
  beforeAll(async () => {
    await runtime();
    telegramApi = await startFakeProvider();
    telegramApi.on('GET', /^\/bot(\d+):[^/]+\/getMe$/, (req) => ({
      json: {
        ok: true,
        result: { id: Number(req.path.slice(4).split(':')[0]), is_bot: true, username: `bot_${req.path.slice(4).split(':')[0]}` },
      },
    }));
    telegramApi.on('POST', /^\/bot[^/]+\/setWebhook$/, () => ({ json: { ok: true, result: true } }));
    restoreEnv = overrideEnv({ TELEGRAM_API_BASE_URL: telegramApi.url });
    [s, other] = await Promise.all([seedAccount(), seedAccount()]);
  });
  afterAll(async () => {
    restoreEnv?.();
    await telegramApi?.close();
  });

  const create = async (body: Record<string, unknown>, acct = s) => {
    const res = await acct.admin.api.post(`${acct.base}/inboxes/`, body);
    if (res.status !== 200) throw new Error(`create inbox: ${res.status} ${res.text}`);
    return res.body as Record<string, any>;
  };

  describe('create (contract endpoint 1)', () => {
    it('creates an API inbox with defaults, identifier and HMAC token', async () => {
      const name = unique('API ');
      const inbox = await create({ name, channel: { type: 'api', webhook_url: 'https://example.com/hook' } });
      expectInboxShape(inbox);
      expect(inbox).toMatchObject({
        name,
        channel_type: 'Channel::Api',
        avatar_url: '',
        greeting_enabled: false,
        greeting_message: null,
        enable_email_collect: true,
        csat_survey_enabled: false,
        enable_auto_assignment: true,
        auto_assignment_config: {},
        working_hours_enabled: false,
        timezone: 'UTC',
        allow_messages_after_resolved: true,
        lock_to_single_conversation: false,
        sender_name_type: 'friendly',
        business_name: null,
        webhook_url: 'https://example.com/hook',
        hmac_mandatory: false,
        website_token: null,
        web_widget_script: null,
        widget_color: null,
        callback_webhook_url: null,
        additional_attributes: {},
      });
      expect(inbox.working_hours).toEqual(DEFAULT_HOURS);
      expect(inbox.inbox_identifier).toMatch(/^[1-9A-HJ-NP-Za-km-z]{24}$/);
      expect(inbox.hmac_token).toMatch(/^[1-9A-HJ-NP-Za-km-z]{24}$/);
      // The public interface finds the inbox by its identifier.
      expect((await findInboxByIdentifier(inbox.inbox_identifier))?.id).toBe(inbox.id);
    });

    it('creates a web widget inbox with its token, script and widget attributes', async () => {
      const inbox = await create({
        name: 'Website',
        channel: {
          type: 'web_widget',
          website_url: 'https://shop.example.com',
          welcome_title: 'Hi',
          welcome_tagline: 'Ask us',
          widget_color: '#ff0000',
        },
      });
      expectInboxShape(inbox);
      expect(inbox).toMatchObject({
        channel_type: 'Channel::WebWidget',
        website_url: 'https://shop.example.com',
        welcome_title: 'Hi',
        welcome_tagline: 'Ask us',
        widget_color: '#ff0000',
        reply_time: 'in_a_few_minutes',
        hmac_mandatory: false,
        pre_chat_form_enabled: false,
        continuity_via_email: true,
        selected_feature_flags: { attachments: true, emoji_picker: true, end_conversation: true, use_inbox_avatar_for_bot: false },
      });
      expect(inbox.website_token).toMatch(/^[1-9A-HJ-NP-Za-km-z]{24}$/);
      expect(inbox.web_widget_script).toContain(`websiteToken: '${inbox.website_token}'`);
      expect(inbox.web_widget_script).toContain('/packs/js/sdk.js');
      expect(typeof inbox.hmac_token).toBe('string');
      // Defaults, and more than one website inbox per account.
      const second = await create({ name: 'Website 2', channel: { type: 'web_widget', website_url: 'https://b.example.com' } });
      expect(second.widget_color).toBe('#1f93ff');
      expect(second.website_token).not.toBe(inbox.website_token);
    });

    it('creates email, line, telegram, whatsapp and sms inboxes, storing their credentials', async () => {
      const address = `${unique('support')}@example.com`;
      const email = await create({
        name: 'Mail',
        channel: { type: 'email', email: address, imap_enabled: true, imap_address: 'imap.example.com', imap_port: 993 },
      });
      expectInboxShape(email);
      expect(email).toMatchObject({
        channel_type: 'Channel::Email',
        email: address,
        imap_enabled: true,
        imap_address: 'imap.example.com',
        imap_port: 993,
      });

      const lineId = unique('line');
      const line = await create({
        name: 'Line',
        channel: { type: 'line', line_channel_id: lineId, line_channel_secret: 's', line_channel_token: 't' },
      });
      expectInboxShape(line);
      expect(line).toMatchObject({ channel_type: 'Channel::Line', line_channel_id: lineId });
      expect(line.callback_webhook_url).toMatch(new RegExp(`/webhooks/line/${lineId}$`));

      const token = `${Date.now()}${Math.floor(Math.random() * 1000)}:AAH${unique('x').replace(/[^\w-]/g, '')}`;
      const telegram = await create({ channel: { type: 'telegram', bot_token: token } });
      expectInboxShape(telegram);
      expect(telegram.channel_type).toBe('Channel::Telegram');
      // Named after the bot, as Telegram's getMe names it.
      expect(telegram.name).toBe(`bot_${token.split(':')[0]}`);
      expect(telegram.bot_name).toBe(telegram.name);

      const phone = `+1415${String(Date.now()).slice(-7)}`;
      const whatsapp = await create({
        name: 'WA',
        channel: {
          type: 'whatsapp',
          phone_number: phone,
          provider: 'whatsapp_cloud',
          provider_config: { api_key: 'k', phone_number_id: '1', business_account_id: '2' },
        },
      });
      expectInboxShape(whatsapp);
      expect(whatsapp).toMatchObject({
        channel_type: 'Channel::Whatsapp',
        phone_number: phone,
        provider: 'whatsapp_cloud',
        message_templates: [],
      });
      expect(whatsapp.provider_config).toMatchObject({ api_key: 'k', webhook_verify_token: expect.any(String) });
      expect(whatsapp.callback_webhook_url).toContain(`/webhooks/whatsapp/${phone}`);

      const sms = await create({
        name: 'SMS',
        channel: {
          type: 'sms',
          phone_number: phone,
          provider_config: { account_id: 'a', application_id: 'b', api_key: 'c', api_secret: 'd' },
        },
      });
      expectInboxShape(sms);
      expect(sms).toMatchObject({ channel_type: 'Channel::Sms', phone_number: phone, provider: 'default' });
      expect(sms.callback_webhook_url).toContain(`/webhooks/sms/${phone.slice(1)}`);

      // Channel identities are unique across the installation.
      const dup = (body: Record<string, unknown>) => s.admin.api.post(`${s.base}/inboxes`, { name: 'dup', channel: body });
      expect(fieldsOf(expectErrorBody(await dup({ type: 'email', email: address.toUpperCase() }), 422))).toEqual({
        'channel.email': 'taken',
      });
      expect(
        fieldsOf(
          expectErrorBody(
            await other.admin.api.post(`${other.base}/inboxes`, { name: 'x', channel: { type: 'whatsapp', phone_number: phone } }),
            422,
          ),
        ),
      ).toEqual({
        'channel.phone_number': 'taken',
      });
      expect(fieldsOf(expectErrorBody(await dup({ type: 'telegram', bot_token: token }), 422))).toEqual({ 'channel.bot_token': 'taken' });
    });

    it('accepts Rails-style bodies: the inbox root key, string booleans, form encoding', async () => {
      const rooted = await create({
        inbox: { name: 'Rooted', greeting_enabled: 'true', greeting_message: 'Hello', channel: { type: 'api' } },
      });
      expect(rooted).toMatchObject({ name: 'Rooted', greeting_enabled: true, greeting_message: 'Hello' });
      const form = await s.admin.api.post(
        `${s.base}/inboxes`,
        'name=Form&enable_auto_assignment=false&timezone=Europe%2FBerlin&channel[type]=web_widget&channel[website_url]=https%3A%2F%2Fx.example&business_name=null',
        { 'content-type': 'application/x-www-form-urlencoded' },
      );
      expect(form.status).toBe(200);
      expect(form.body).toMatchObject({
        name: 'Form',
        enable_auto_assignment: false,
        timezone: 'Europe/Berlin',
        website_url: 'https://x.example',
        business_name: null,
      });
    });

    it('answers 422 naming the fields', async () => {
      const post = (body: unknown) => s.admin.api.post(`${s.base}/inboxes`, body);
      expect(fieldsOf(expectErrorBody(await post({ name: 'x' }), 422))).toEqual({ channel: 'required' });
      expect(fieldsOf(expectErrorBody(await post({ name: 'x', channel: { type: 'facebook' } }), 422))).toEqual({
        'channel.type': 'invalid',
      });
      expect(fieldsOf(expectErrorBody(await post({ channel: { type: 'api' } }), 422))).toEqual({ name: 'required' });
      expect(fieldsOf(expectErrorBody(await post({ name: 'x', channel: { type: 'web_widget' } }), 422))).toEqual({
        'channel.website_url': 'required',
      });
      expect(fieldsOf(expectErrorBody(await post({ name: 'x', channel: { type: 'email' } }), 422))).toEqual({
        'channel.email': 'required',
      });
      expect(fieldsOf(expectErrorBody(await post({ name: 'x', channel: { type: 'line', line_channel_id: '1' } }), 422))).toMatchObject({
        'channel.line_channel_secret': 'required',
      });
      expect(fieldsOf(expectErrorBody(await post({ name: 'x', channel: { type: 'whatsapp', phone_number: '12' } }), 422))).toEqual({
        'channel.phone_number': 'invalid',
      });
      expect(fieldsOf(expectErrorBody(await post({ name: 'x', channel: { type: 'api', webhook_url: 'ftp://x' } }), 422))).toEqual({
        'channel.webhook_url': 'invalid',
      });
      expect(
        fieldsOf(
          expectErrorBody(
            await post({
              name: 'x',
              timezone: 'Mars/Olympus',
              sender_name_type: 'rude',
              greeting_enabled: 'maybe',
              channel: { type: 'api' },
            }),
            422,
          ),
        ),
      ).toEqual({ timezone: 'invalid', sender_name_type: 'invalid', greeting_enabled: 'invalid' });
      expect(fieldsOf(expectErrorBody(await post({ name: 'x'.repeat(256), channel: { type: 'api' } }), 422))).toEqual({ name: 'too_long' });
    });

    it('is for administrators: agents get 403, other accounts 404, no token 401', async () => {
      const body = { name: 'nope', channel: { type: 'api' } };
      expect(expectErrorBody(await s.agent.api.post(`${s.base}/inboxes/`, body), 403).errors[0].code).toBe('forbidden');
      expectErrorBody(await other.admin.api.post(`${s.base}/inboxes/`, body), 404);
      const list = await s.admin.api.get(`${s.base}/inboxes`);
      expect(list.body.payload.some((i: { name: string }) => i.name === 'nope')).toBe(false);
    });

    it('enforces the account inbox limit with 402', async () => {
      const limited = await seedAccount();
      const set = await limited.platform.patch(`/platform/api/v1/accounts/${limited.accountId}`, { limits: { inboxes: 1 } });
      expect(set.status).toBe(200);
      await create({ name: 'one', channel: { type: 'api' } }, limited);
      const res = await limited.admin.api.post(`${limited.base}/inboxes`, { name: 'two', channel: { type: 'api' } });
      expect(expectErrorBody(res, 402).errors[0].code).toBe('limit_exceeded');
    });
  });

  describe('list, show, update, delete', () => {
    it('lists (contract endpoint 2) ordered by name; agents see only their inboxes', async () => {
      const acct = await seedAccount();
      const b = await create({ name: 'beta', channel: { type: 'api' } }, acct);
      const a = await create({ name: 'Alpha', channel: { type: 'api' } }, acct);
      const list = await acct.admin.api.get(`${acct.base}/inboxes`);
      expect(list.status).toBe(200);
      expect(list.body.payload.map((i: { id: number }) => i.id)).toEqual([a.id, b.id]);
      list.body.payload.forEach(expectInboxShape);
      expect(list.body.payload[0].hmac_token).toBe(a.hmac_token);

      expect((await acct.agent.api.get(`${acct.base}/inboxes`)).body).toEqual({ payload: [] });
      await acct.admin.api.post(`${acct.base}/inbox_members`, { inbox_id: b.id, user_ids: [acct.agent.id] });
      const agentList = (await acct.agent.api.get(`${acct.base}/inboxes/`)).body.payload;
      expect(agentList.map((i: { id: number }) => i.id)).toEqual([b.id]);
      // Credentials are for administrators.
      expect('hmac_token' in agentList[0]).toBe(false);
      expect(agentList[0].inbox_identifier).toBe(b.inbox_identifier);
      expectErrorBody(await other.admin.api.get(`${acct.base}/inboxes`), 404);
    });

    it('shows an inbox; 404 when absent, foreign or (for agents) not a member', async () => {
      const inbox = await create({ name: 'shown', channel: { type: 'api' } });
      const shown = await s.admin.api.get(`${s.base}/inboxes/${inbox.id}`);
      expect(shown.status).toBe(200);
      expect(shown.body).toEqual(inbox);
      const err = expectErrorBody(await s.agent.api.get(`${s.base}/inboxes/${inbox.id}`), 404);
      expect(err.description).toBe('Inbox not found');
      expectErrorBody(await other.admin.api.get(`${other.base}/inboxes/${inbox.id}`), 404);
      expectErrorBody(await s.admin.api.get(`${s.base}/inboxes/999999999`), 404);
      expectErrorBody(await s.admin.api.get(`${s.base}/inboxes/abc`), 404);
      await s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: inbox.id, user_ids: [s.agent.id] });
      expect((await s.agent.api.get(`${s.base}/inboxes/${inbox.id}/`)).body.id).toBe(inbox.id);
    });

    it('updates attributes, channel fields and working hours', async () => {
      const inbox = await create({ name: 'before', channel: { type: 'web_widget', website_url: 'https://a.example' } });
      const res = await s.admin.api.patch(`${s.base}/inboxes/${inbox.id}`, {
        name: 'after',
        greeting_enabled: true,
        greeting_message: 'Welcome',
        working_hours_enabled: true,
        timezone: 'America/New_York',
        out_of_office_message: 'We are away',
        channel: { widget_color: '#000000', welcome_title: 'Hey', selected_feature_flags: ['attachments'], reply_time: 'in_a_day' },
        working_hours: [
          { day_of_week: 1, open_hour: 8, open_minutes: 30, close_hour: 18, close_minutes: 0 },
          { day_of_week: 0, open_all_day: true, closed_all_day: false },
          { day_of_week: 2, closed_all_day: true },
          { day_of_week: 3, close_hour: 20 },
        ],
      });
      expect(res.status).toBe(200);
      expectInboxShape(res.body);
      expect(res.body).toMatchObject({
        name: 'after',
        greeting_enabled: true,
        greeting_message: 'Welcome',
        working_hours_enabled: true,
        timezone: 'America/New_York',
        out_of_office_message: 'We are away',
        widget_color: '#000000',
        welcome_title: 'Hey',
        reply_time: 'in_a_day',
        website_token: inbox.website_token,
        website_url: 'https://a.example',
        selected_feature_flags: { attachments: true, emoji_picker: false, end_conversation: false, use_inbox_avatar_for_bot: false },
      });
      expect(res.body.working_hours).toEqual([
        { day_of_week: 0, closed_all_day: false, open_hour: 0, open_minutes: 0, close_hour: 23, close_minutes: 59, open_all_day: true },
        { day_of_week: 1, closed_all_day: false, open_hour: 8, open_minutes: 30, close_hour: 18, close_minutes: 0, open_all_day: false },
        { ...DEFAULT_HOURS[0], day_of_week: 2 },
        { ...DEFAULT_HOURS[3], close_hour: 20 },
        DEFAULT_HOURS[4],
        DEFAULT_HOURS[5],
        DEFAULT_HOURS[6],
      ]);
      expect((await s.admin.api.get(`${s.base}/inboxes/${inbox.id}`)).body).toEqual(res.body);
      const put = await s.admin.api.put(`${s.base}/inboxes/${inbox.id}`, { inbox: { enable_email_collect: 'false' } });
      expect(put.body.enable_email_collect).toBe(false);

      const changes = await streamChanges((c) => c.type === 'inbox' && c.newImage?.id === inbox.id);
      expect(changes.map((c) => c.action)).toEqual(['INSERT', 'MODIFY', 'MODIFY']);
      expect(changes[1].oldImage?.name).toBe('before');
      expect(changes[1].newImage?.name).toBe('after');
    });

    it('refuses working hours outside the bounds and unknown time zones with 422', async () => {
      const inbox = await create({ name: 'hours', channel: { type: 'api' } });
      const patch = (body: unknown) => s.admin.api.patch(`${s.base}/inboxes/${inbox.id}`, body);
      const cases: [unknown, Record<string, string>][] = [
        [{ working_hours: [{ day_of_week: 1 }, { day_of_week: 2, open_hour: 24 }] }, { 'working_hours[1].open_hour': 'invalid' }],
        [{ working_hours: [{ day_of_week: 7 }] }, { 'working_hours[0].day_of_week': 'invalid' }],
        [{ working_hours: [{ day_of_week: 1, close_minutes: 60 }] }, { 'working_hours[0].close_minutes': 'invalid' }],
        [{ working_hours: [{ day_of_week: -1 }] }, { 'working_hours[0].day_of_week': 'invalid' }],
        [{ working_hours: [{ day_of_week: 1, open_hour: 18, close_hour: 9 }] }, { 'working_hours[0].close_hour': 'invalid' }],
        [{ working_hours: [{ day_of_week: 2, open_all_day: true, closed_all_day: true }] }, { 'working_hours[0].open_all_day': 'invalid' }],
        [{ working_hours: [{ day_of_week: 0, closed_all_day: false }] }, { 'working_hours[0].open_hour': 'required' }],
        [{ working_hours: { day_of_week: 1 } }, { working_hours: 'invalid' }],
        [{ timezone: 'Not/AZone' }, { timezone: 'invalid' }],
        [{ timezone: '+05:00' }, { timezone: 'invalid' }],
        [{ channel: { webhook_url: 'nope' } }, { 'channel.webhook_url': 'invalid' }],
        [{ channel: { widget_color: '#fff' } }, {}],
      ];
      for (const [body, fields] of cases) {
        const res = await patch(body);
        if (Object.keys(fields).length) expect(fieldsOf(expectErrorBody(res, 422)), JSON.stringify(body)).toEqual(fields);
        else expect(res.status, JSON.stringify(body)).toBe(200);
      }
      // Nothing half-written.
      expect((await s.admin.api.get(`${s.base}/inboxes/${inbox.id}`)).body.working_hours).toEqual(DEFAULT_HOURS);
      const ok = await patch({
        timezone: 'Asia/Kolkata',
        working_hours: [{ day_of_week: '6', open_hour: '10', close_hour: '14', closed_all_day: 'false' }],
      });
      expect(ok.status).toBe(200);
      expect(ok.body.timezone).toBe('Asia/Kolkata');
      expect(ok.body.working_hours[6]).toEqual({
        day_of_week: 6,
        closed_all_day: false,
        open_hour: 10,
        open_minutes: 0,
        close_hour: 14,
        close_minutes: 0,
        open_all_day: false,
      });
      expect((await patch({ timezone: 'UTC' })).body.timezone).toBe('UTC');
    });

    it('updates and deletes are for administrators of the account', async () => {
      const inbox = await create({ name: 'guarded', channel: { type: 'api' } });
      await s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: inbox.id, user_ids: [s.agent.id] });
      expectErrorBody(await s.agent.api.patch(`${s.base}/inboxes/${inbox.id}`, { name: 'x' }), 403);
      expectErrorBody(await s.agent.api.delete(`${s.base}/inboxes/${inbox.id}`), 403);
      expectErrorBody(await other.admin.api.patch(`${other.base}/inboxes/${inbox.id}`, { name: 'x' }), 404);
      expectErrorBody(await other.admin.api.delete(`${other.base}/inboxes/${inbox.id}`), 404);
      expect((await s.admin.api.get(`${s.base}/inboxes/${inbox.id}`)).body.name).toBe('guarded');
    });

    it('deletes an inbox with its members; its identifier no longer resolves', async () => {
      const inbox = await create({ name: 'doomed', channel: { type: 'api' } });
      await s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: inbox.id, user_ids: [s.agent.id, s.admin.id] });
      const res = await s.admin.api.delete(`${s.base}/inboxes/${inbox.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Your inbox deletion request will be processed in some time.' });
      expectErrorBody(await s.admin.api.get(`${s.base}/inboxes/${inbox.id}`), 404);
      expectErrorBody(await s.admin.api.get(`${s.base}/inbox_members/${inbox.id}`), 404);
      expectErrorBody(await s.admin.api.delete(`${s.base}/inboxes/${inbox.id}`), 404);
      expect(await findInboxByIdentifier(inbox.inbox_identifier)).toBeUndefined();
      const agentList = (await s.agent.api.get(`${s.base}/inboxes`)).body.payload;
      expect(agentList.some((i: { id: number }) => i.id === inbox.id)).toBe(false);
      const changes = await streamChanges((c) => c.type === 'inbox' && c.oldImage?.id === inbox.id && c.action === 'REMOVE');
      expect(changes).toHaveLength(1);
    });
  });
});
