import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, fieldsOf, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { browser, ok, openWidget, widgetInbox, type WidgetInbox } from '../widget/fixtures.ts';

// Chatwoot's campaigns: the account API (administrators only, as its CampaignPolicy), the widget's list of
// the inbox's enabled ongoing campaigns, and `campaign.triggered` starting the visitor's conversation with
// the campaign's message.

describe('campaigns', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  let site: WidgetInbox;
  let apiInbox: { id: number };
  beforeAll(async () => {
    [s, other] = await Promise.all([seedAccount(), seedAccount()]);
    site = await widgetInbox(s);
    apiInbox = ok(await s.admin.api.post(`${s.base}/inboxes`, { name: 'api', channel: { type: 'api' } }), 'api inbox');
  });

  const body = (extra: Record<string, unknown> = {}) => ({
    title: 'Pricing help',
    description: 'Visitors reading the pricing page',
    message: 'Questions about our plans? Ask us!',
    inbox_id: site.id,
    sender_id: s.admin.id,
    trigger_rules: { url: 'https://example.com/pricing', time_on_page: 3 },
    ...extra,
  });

  it('creates, lists, shows, updates and deletes a campaign in Chatwoot’s shape (administrators)', async () => {
    const created = ok(await s.admin.api.post(`${s.base}/campaigns`, { campaign: body() }), 'create');
    expect(created).toMatchObject({
      id: expect.any(Number),
      title: 'Pricing help',
      description: 'Visitors reading the pricing page',
      account_id: s.accountId,
      inbox: expect.objectContaining({ id: site.id, channel_type: 'Channel::WebWidget' }),
      sender: expect.objectContaining({ id: s.admin.id, role: 'administrator' }),
      message: 'Questions about our plans? Ask us!',
      campaign_status: 'active',
      enabled: true,
      campaign_type: 'ongoing',
      trigger_rules: { url: 'https://example.com/pricing', time_on_page: 3 },
      trigger_only_during_business_hours: false,
    });
    expect(typeof created.created_at).toBe('string');
    expect(created).not.toHaveProperty('scheduled_at');
    // Display ids are per account and dense.
    const second = ok(await s.admin.api.post(`${s.base}/campaigns`, body({ title: 'Second', sender_id: null })), 'second');
    expect(second.id).toBe(created.id + 1);
    expect(second.sender).toBeNull();

    const list = ok(await s.admin.api.get(`${s.base}/campaigns`), 'list') as any[];
    expect(list.map((c) => c.id)).toEqual([created.id, second.id]);
    expect(ok(await s.admin.api.get(`${s.base}/campaigns/${created.id}`), 'show')).toMatchObject({ id: created.id, title: 'Pricing help' });

    const updated = ok(
      await s.admin.api.patch(`${s.base}/campaigns/${created.id}`, {
        campaign: { title: 'Plans', enabled: false, trigger_only_during_business_hours: true },
      }),
      'update',
    );
    expect(updated).toMatchObject({
      id: created.id,
      title: 'Plans',
      enabled: false,
      trigger_only_during_business_hours: true,
      message: created.message,
    });

    const del = await s.admin.api.delete(`${s.base}/campaigns/${second.id}`);
    expect(del.status).toBe(200);
    expectErrorBody(await s.admin.api.get(`${s.base}/campaigns/${second.id}`), 404);
    expect((ok(await s.admin.api.get(`${s.base}/campaigns`), 'list') as any[]).map((c) => c.id)).toEqual([created.id]);
  });

  it('validates as Chatwoot’s model does', async () => {
    const post = (b: unknown) => s.admin.api.post(`${s.base}/campaigns`, b);
    expect(fieldsOf(expectErrorBody(await post({ inbox_id: site.id }), 422))).toMatchObject({ title: 'required', message: 'required' });
    expect(fieldsOf(expectErrorBody(await post(body({ inbox_id: apiInbox.id })), 422))).toEqual({ inbox_id: 'invalid' });
    expect(fieldsOf(expectErrorBody(await post(body({ inbox_id: 999_999_999 })), 422))).toEqual({ inbox_id: 'not_found' });
    expect(fieldsOf(expectErrorBody(await post(body({ trigger_rules: { url: 'example.com/pricing' } })), 422))).toEqual({
      'trigger_rules.url': 'invalid',
    });
    expect(fieldsOf(expectErrorBody(await post(body({ sender_id: other.admin.id })), 422))).toEqual({ sender_id: 'invalid' });
    // Another account's inbox is not an inbox of this account.
    const foreign = await widgetInbox(other);
    expect(fieldsOf(expectErrorBody(await post(body({ inbox_id: foreign.id })), 422))).toEqual({ inbox_id: 'not_found' });
  });

  it('is for administrators only; another account sees none of it', async () => {
    const c = ok(await s.admin.api.post(`${s.base}/campaigns`, body()), 'create');
    expectErrorBody(await s.agent.api.get(`${s.base}/campaigns`), 403);
    expectErrorBody(await s.agent.api.get(`${s.base}/campaigns/${c.id}`), 403);
    expectErrorBody(await s.agent.api.post(`${s.base}/campaigns`, body()), 403);
    expectErrorBody(await s.agent.api.patch(`${s.base}/campaigns/${c.id}`, { title: 'x' }), 403);
    expectErrorBody(await s.agent.api.delete(`${s.base}/campaigns/${c.id}`), 403);
    expectErrorBody(await other.admin.api.get(`${s.base}/campaigns/${c.id}`), 404);
    expectErrorBody(await other.admin.api.get(`${other.base}/campaigns/${c.id}`), 404);
    expectErrorBody(await other.admin.api.patch(`${other.base}/campaigns/${c.id}`, { title: 'x' }), 404);
    expect(ok(await s.admin.api.get(`${s.base}/campaigns/${c.id}`), 'unchanged').title).toBe('Pricing help');
  });

  it('the widget lists its inbox’s enabled campaigns; campaign.triggered starts the conversation with the campaign message once', async () => {
    const inbox = await widgetInbox(s);
    const on = ok(await s.admin.api.post(`${s.base}/campaigns`, body({ inbox_id: inbox.id })), 'enabled');
    ok(await s.admin.api.post(`${s.base}/campaigns`, body({ inbox_id: inbox.id, enabled: false, title: 'off' })), 'disabled');
    const api = await browser();
    const v = await openWidget(api, inbox);
    const q = `website_token=${encodeURIComponent(inbox.website_token)}`;
    const h = { 'X-Auth-Token': v.auth_token };
    const listed = ok(await api.get(`/api/v1/widget/campaigns?${q}`, h), 'widget campaigns') as any[];
    const profile = ok(await s.admin.api.get('/api/v1/profile'), 'profile');
    expect(listed).toEqual([
      {
        id: on.id,
        trigger_rules: { url: 'https://example.com/pricing', time_on_page: 3 },
        message: 'Questions about our plans? Ask us!',
        sender: { name: profile.name, avatar_url: expect.any(String) },
        trigger_only_during_business_hours: false,
      },
    ]);

    const trigger = (campaignId: unknown) =>
      api.post(
        `/api/v1/widget/events?${q}`,
        {
          name: 'campaign.triggered',
          event_info: { campaign_id: campaignId, referer: 'https://example.com/pricing', custom_attributes: { plan: 'pro' } },
        },
        h,
      );
    expect((await trigger(on.id)).status).toBe(200);
    // Made within the request, as the widget's next call expects.
    const conv = ok(await api.get(`/api/v1/widget/conversations?${q}`, h), 'conversation');
    expect(conv.id).toEqual(expect.any(Number));
    const full = ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}`), 'account view');
    expect(full).toMatchObject({ inbox_id: inbox.id, status: 'open', custom_attributes: { plan: 'pro' } });
    expect(full.additional_attributes).toMatchObject({ referer: 'https://example.com/pricing', campaign_id: on.id });
    const messages = ok(await api.get(`/api/v1/widget/messages?${q}`, h), 'messages') as any[];
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      content: 'Questions about our plans? Ask us!',
      message_type: 1,
      sender: expect.objectContaining({ id: s.admin.id, type: 'user' }),
    });

    // Once: a second trigger (or another campaign) adds nothing.
    expect((await trigger(on.id)).status).toBe(200);
    const again = ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}/messages`), 'messages').payload as any[];
    expect(again).toHaveLength(1);
    expect(
      (ok(await s.admin.api.get(`${s.base}/contacts/${v.contact.id}/conversations`), 'contact conversations').payload as any[]).length,
    ).toBe(1);
  });

  it('does nothing for a disabled, unknown or other inbox’s campaign, and needs the visitor’s token', async () => {
    const inbox = await widgetInbox(s);
    const off = ok(await s.admin.api.post(`${s.base}/campaigns`, body({ inbox_id: inbox.id, enabled: false })), 'disabled');
    const elsewhere = ok(await s.admin.api.post(`${s.base}/campaigns`, body()), 'other inbox');
    const api = await browser();
    const v = await openWidget(api, inbox);
    const q = `website_token=${encodeURIComponent(inbox.website_token)}`;
    const h = { 'X-Auth-Token': v.auth_token };
    for (const id of [off.id, elsewhere.id, 999_999, 'abc']) {
      expect(
        (await api.post(`/api/v1/widget/events?${q}`, { name: 'campaign.triggered', event_info: { campaign_id: id } }, h)).status,
      ).toBe(200);
    }
    expect(ok(await api.get(`/api/v1/widget/conversations?${q}`, h), 'none')).toEqual({});
    expect(ok(await api.get(`/api/v1/widget/campaigns?${q}`, h), 'none listed')).toEqual([]);
    expectErrorBody(await api.post(`/api/v1/widget/events?${q}`, { name: 'campaign.triggered', event_info: { campaign_id: off.id } }), 401);
    expectErrorBody(await api.post(`/api/v1/widget/events?${q}`, { name: 'campaign.fired', event_info: {} }, h), 422);
  });

  it('a campaign without a sender sends its message with no sender', async () => {
    const inbox = await widgetInbox(s);
    const c = ok(
      await s.admin.api.post(`${s.base}/campaigns`, body({ inbox_id: inbox.id, sender_id: null, message: 'Hi from the team' })),
      'create',
    );
    const api = await browser();
    const v = await openWidget(api, inbox);
    const q = `website_token=${encodeURIComponent(inbox.website_token)}`;
    const h = { 'X-Auth-Token': v.auth_token };
    expect(
      (await api.post(`/api/v1/widget/events?${q}`, { name: 'campaign.triggered', event_info: { campaign_id: c.id } }, h)).status,
    ).toBe(200);
    const messages = ok(await api.get(`/api/v1/widget/messages?${q}`, h), 'messages') as any[];
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ content: 'Hi from the team', message_type: 1 });
    expect(messages[0].sender ?? null).toBeNull();
  });
});
