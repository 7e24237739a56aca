import { createHmac, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { signJwt } from '#shared/crypto/jwt.ts';
import * as keys from '#shared/db/keys.ts';
import { expectErrorBody, seedAccount, type Client, type SeededAccount } from '../../support/runtime.ts';
import { streamChanges } from '../../support/stream.ts';
import { forgedJwt } from '../../support/http.ts';
import {
  browser,
  configPath,
  EVENT_INFO,
  eventsPath,
  ok,
  openWidget,
  trigger,
  widgetInbox,
  type WidgetInbox,
  type WidgetSession,
} from './fixtures.ts';

// Chatwoot's widget API as its widget calls it: `config` makes (or, given the visitor's auth token,
// finds) the visitor and hands out the auth token; `events` with `webwidget.triggered` raises the
// webwidget_triggered event, which the table's stream carries as a signal item in the contact's partition.

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
const b64 = (x: unknown) => Buffer.from(JSON.stringify(x)).toString('base64url');

const signals = (accountId: number, contactId: number) =>
  streamChanges((c) => c.type === 'event_signal' && c.pk === keys.contactPartition(accountId, contactId) && c.action === 'INSERT');

describe('widget API', () => {
  let s: SeededAccount;
  let inbox: WidgetInbox;
  let api: Client;

  beforeAll(async () => {
    s = await seedAccount();
    inbox = await widgetInbox(s, { welcome_title: 'Hi there', welcome_tagline: 'We reply fast', widget_color: '#ff6600' });
    api = await browser();
  });

  describe('config', () => {
    it('makes a visitor once and finds it again with its auth token', async () => {
      const first = await openWidget(api, inbox);
      expect(first.website_channel_config).toMatchObject({
        website_name: inbox.name,
        website_token: inbox.website_token,
        website_url: 'https://example.com',
        widget_color: '#ff6600',
        welcome_title: 'Hi there',
        welcome_tagline: 'We reply fast',
        greeting_enabled: false,
        greeting_message: null,
        reply_time: 'in_a_few_minutes',
        enabled_features: expect.arrayContaining(['attachments', 'emoji_picker', 'end_conversation']),
        pre_chat_form_enabled: false,
        pre_chat_form_options: expect.any(Object),
        working_hours_enabled: false,
        working_hours: expect.any(Array),
        timezone: 'UTC',
        utc_off_set: '+00:00',
        out_of_office_message: null,
        csat_survey_enabled: false,
        has_a_connected_agent_bot: null,
        locale: expect.any(String),
      });
      expect(first.website_channel_config.working_hours).toHaveLength(7);
      expect((first as any).chatwoot_website_channel).toEqual(first.website_channel_config);
      expect((first as any).global_config).toEqual({});
      expect(first.contact).toEqual({
        id: expect.any(Number),
        name: expect.stringMatching(/^[a-z]+-[a-z]+-\d{4}$/),
        email: null,
        phone_number: null,
        pubsub_token: expect.any(String),
        source_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });

      // The auth token is an HS256 JWT naming the contact inbox and the inbox.
      const [header] = first.auth_token.split('.');
      expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({ alg: 'HS256', typ: 'JWT' });
      expect(claimsOf(first.auth_token)).toMatchObject({
        source_id: first.contact.source_id,
        inbox_id: inbox.id,
        iat: expect.any(Number),
        exp: expect.any(Number),
      });

      // The account sees the visitor, with its contact inbox in this inbox.
      const shown = ok(await s.admin.api.get(`${s.base}/contacts/${first.contact.id}`), 'contact').payload;
      expect(shown).toMatchObject({ id: first.contact.id, name: first.contact.name, email: null, phone_number: null });
      expect(shown.contact_inboxes).toEqual([
        expect.objectContaining({ source_id: first.contact.source_id, inbox: expect.objectContaining({ id: inbox.id }) }),
      ]);

      // With the token: the same visitor, no new contact, a fresh token for it.
      const again = await openWidget(api, inbox, first.auth_token);
      expect(again.contact).toEqual(first.contact);
      expect(claimsOf(again.auth_token)).toMatchObject({ source_id: first.contact.source_id, inbox_id: inbox.id });
      const created = await streamChanges(
        (c) => c.type === 'contact' && c.action === 'INSERT' && c.pk === keys.contactPartition(s.accountId, first.contact.id),
      );
      expect(created).toHaveLength(1);
    });

    it('makes a new visitor for no token, a bad token or a token of another inbox', async () => {
      const a = await openWidget(api, inbox);
      const b = await openWidget(api, inbox);
      expect(b.contact.id).not.toBe(a.contact.id);
      expect(b.contact.source_id).not.toBe(a.contact.source_id);

      const bad = await openWidget(api, inbox, forgedJwt(a.auth_token));
      expect([a.contact.id, b.contact.id]).not.toContain(bad.contact.id);

      const other = await widgetInbox(s);
      const there = await openWidget(api, other, a.auth_token);
      expect(there.contact.id).not.toBe(a.contact.id);
      expect(claimsOf(there.auth_token).inbox_id).toBe(other.id);
    });

    it('takes the website token from the body too, as Rails params do', async () => {
      const res = ok(await api.post('/api/v1/widget/config', { website_token: inbox.website_token }), 'config');
      expect(res.website_channel_config.website_token).toBe(inbox.website_token);
    });

    it('shows the connected agent bot and the time zone offset', async () => {
      const bot = ok(
        await s.admin.api.post(`${s.base}/agent_bots`, { name: 'Helper bot', outgoing_url: 'https://bot.example.com/hook' }),
        'bot',
      );
      const withBot = await widgetInbox(s);
      ok(await s.admin.api.post(`${s.base}/inboxes/${withBot.id}/set_agent_bot`, { agent_bot: bot.id }), 'set bot');
      ok(await s.admin.api.patch(`${s.base}/inboxes/${withBot.id}`, { timezone: 'Asia/Kolkata' }), 'timezone');
      const cfg = (await openWidget(api, withBot)).website_channel_config;
      expect(cfg).toMatchObject({ has_a_connected_agent_bot: 'Helper bot', timezone: 'Asia/Kolkata', utc_off_set: '+05:30' });
    });
  });

  describe('events', () => {
    let visitor: WidgetSession;

    beforeAll(async () => {
      visitor = await openWidget(api, inbox);
    });

    it('raises webwidget_triggered for the visitor, with the event info, before and after a conversation', async () => {
      const res = await trigger(api, inbox, visitor.auth_token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});

      const [first] = await signals(s.accountId, visitor.contact.id);
      expect(first.newImage).toMatchObject({
        type: 'event_signal',
        name: 'webwidget_triggered',
        account_id: s.accountId,
        conversation_id: null,
        contact_id: visitor.contact.id,
        inbox_id: inbox.id,
        performed_by: { type: 'contact', id: visitor.contact.id },
        is_private: false,
        data: { contact_inbox_id: expect.any(Number), source_id: visitor.contact.source_id, event_info: EVENT_INFO },
      });

      // Once the visitor has conversations here, the event names the latest (display id).
      const older = ok(
        await s.admin.api.post(`${s.base}/conversations`, {
          inbox_id: inbox.id,
          contact_id: visitor.contact.id,
          source_id: visitor.contact.source_id,
        }),
        'conversation',
      );
      const newer = ok(
        await s.admin.api.post(`${s.base}/conversations`, {
          inbox_id: inbox.id,
          contact_id: visitor.contact.id,
          source_id: visitor.contact.source_id,
        }),
        'conversation',
      );
      expect(newer.id).toBeGreaterThan(older.id);
      expect((await trigger(api, inbox, visitor.auth_token)).status).toBe(200);
      const all = await signals(s.accountId, visitor.contact.id);
      expect(all).toHaveLength(2);
      expect(all[1].newImage).toMatchObject({
        conversation_id: newer.id,
        data: { contact_inbox_id: (first.newImage!.data as any).contact_inbox_id },
      });
    });

    it("fills in what Chatwoot's widget leaves to the request: language from locale and Accept-Language, browser from the User-Agent", async () => {
      const v = await openWidget(api, inbox);
      const ua =
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.109 Safari/537.36';
      const body = { name: 'webwidget.triggered', event_info: { initiated_at: { timestamp: 'now' }, referer: 'https://example.com/' } };
      const res = await api.post(eventsPath(inbox.website_token, '&locale=pt_BR'), body, {
        'X-Auth-Token': v.auth_token,
        'User-Agent': ua,
        'Accept-Language': 'fr-CA,fr;q=0.9,en;q=0.8',
      });
      expect(res.status).toBe(200);
      const [sig] = await signals(s.accountId, v.contact.id);
      expect((sig.newImage!.data as any).event_info).toEqual({
        initiated_at: { timestamp: 'now' },
        referer: 'https://example.com/',
        widget_language: 'pt_BR',
        browser_language: 'fr',
        browser: {
          browser_name: 'Chrome',
          browser_version: '120.0.6099.109',
          device_name: 'Unknown',
          platform_name: 'macOS',
          platform_version: '10.15.7',
        },
      });
    });

    it('takes only webwidget.triggered and campaign.triggered, with an object of event info (422 naming the field), and raises nothing then', async () => {
      const v = await openWidget(api, inbox);
      const named = expectErrorBody(await trigger(api, inbox, v.auth_token, { name: 'conversation.triggered' }), 422);
      expect(named.errors).toEqual([expect.objectContaining({ field: 'name', code: 'invalid' })]);
      const missing = expectErrorBody(await trigger(api, inbox, v.auth_token, {}), 422);
      expect(missing.errors).toEqual([expect.objectContaining({ field: 'name', code: 'required' })]);
      const info = expectErrorBody(await trigger(api, inbox, v.auth_token, { name: 'webwidget.triggered', event_info: [1, 2] }), 422);
      expect(info.errors).toEqual([expect.objectContaining({ field: 'event_info' })]);
      const huge = expectErrorBody(
        await trigger(api, inbox, v.auth_token, { name: 'webwidget.triggered', event_info: { referer: 'x'.repeat(20_000) } }),
        422,
      );
      expect(huge.errors).toEqual([expect.objectContaining({ field: 'event_info' })]);
      expect(await signals(s.accountId, v.contact.id)).toHaveLength(0);
    });

    it('answers 401 for a missing, bad, forged, expired or foreign auth token, and raises nothing', async () => {
      const v = await openWidget(api, inbox);
      const other = await widgetInbox(s);
      const elsewhere = await openWidget(api, other);
      const s2 = await seedAccount();
      const foreign = await openWidget(api, await widgetInbox(s2));
      const [header, body] = v.auth_token.split('.');
      const forged = `${header}.${body}.${createHmac('sha256', 'guess').update(`${header}.${body}`).digest('base64url')}`;
      const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${body}.`;
      const tokens = {
        missing: undefined,
        garbage: 'not-a-token',
        tampered: `${header}.${b64({ ...claimsOf(v.auth_token), source_id: elsewhere.contact.source_id })}.${v.auth_token.split('.')[2]}`,
        forged,
        unsigned,
        expired: await signJwt('widget', { source_id: v.contact.source_id, inbox_id: inbox.id }, -60),
        unknownSource: await signJwt('widget', { source_id: randomUUID(), inbox_id: inbox.id }),
        otherInbox: elsewhere.auth_token,
        otherAccount: foreign.auth_token,
        otherAccountClaimingThisInbox: await signJwt('widget', { source_id: foreign.contact.source_id, inbox_id: inbox.id }),
      };
      for (const [what, token] of Object.entries(tokens)) {
        const err = expectErrorBody(await trigger(api, inbox, token), 401);
        expect(err.errors[0].code, what).toBe('unauthorized');
      }
      // Still fine with the right one.
      expect((await trigger(api, inbox, v.auth_token)).status).toBe(200);
      expect(await signals(s.accountId, v.contact.id)).toHaveLength(1);
      expect(await signals(s.accountId, elsewhere.contact.id)).toHaveLength(0);
      expect(await signals(s2.accountId, foreign.contact.id)).toHaveLength(0);
    });

    it('answers 404 for an unknown or missing website token, whatever the auth token', async () => {
      for (const path of [eventsPath('nope-not-a-token'), '/api/v1/widget/events', eventsPath('x'.repeat(300))]) {
        const err = expectErrorBody(await api.post(path, { name: 'webwidget.triggered' }, { 'X-Auth-Token': visitor.auth_token }), 404);
        expect(err.errors[0].code).toBe('not_found');
      }
      for (const path of [configPath('nope-not-a-token'), '/api/v1/widget/config']) {
        expectErrorBody(await api.post(path), 404);
      }
      // The inbox's token in another inbox's website token is 401 (above); an API inbox has no website token at all.
      const apiInbox = ok(await s.admin.api.post(`${s.base}/inboxes`, { name: 'API', channel: { type: 'api' } }), 'api inbox');
      expectErrorBody(await api.post(configPath(apiInbox.inbox_identifier)), 404);
    });
  });

  it('answers 403 on both routes once the account is suspended', async () => {
    const s3 = await seedAccount();
    const site = await widgetInbox(s3);
    const v = await openWidget(api, site);
    ok(await s3.platform.patch(`/platform/api/v1/accounts/${s3.accountId}`, { status: 'suspended' }), 'suspend');
    expect(expectErrorBody(await api.post(configPath(site.website_token)), 403).errors[0].code).toBe('account_suspended');
    expect(expectErrorBody(await trigger(api, site, v.auth_token), 403).errors[0].code).toBe('account_suspended');
    expect(await signals(s3.accountId, v.contact.id)).toHaveLength(0);
  });
});
