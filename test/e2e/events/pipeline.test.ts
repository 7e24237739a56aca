import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { expectErrorBody, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { startReceiver, type Received, type Receiver } from '../../support/receiver.ts';
import { until } from '../../support/until.ts';

// The whole path of docs/architecture.md#one-events-path under the local runtime: API write → table stream → events
// queue → dispatcher (webhooks, API inbox callback, agent bots, automation rules) → deliveries → receivers.

const chatwootValid = (r: Received, secret: string) =>
  r.headers['x-chatwoot-signature'] ===
  `sha256=${createHmac('sha256', secret).update(`${r.headers['x-chatwoot-timestamp']}.${r.body}`).digest('hex')}`;

const of = (r: Receiver, event: string, pred: (j: any) => boolean = () => true) =>
  r.received.filter((x) => x.json?.event === event && pred(x.json));

// How long a wait of this file lasts before it fails.
const WAIT = { timeoutMs: 15_000 };

describe('events pipeline, end to end', () => {
  let s: SeededAccount;
  let hook: Receiver;
  let callback: Receiver;
  let botHook: Receiver;
  let secret: string;
  let inbox: { id: number; hmac_token: string };
  let contactId: number;

  beforeAll(async () => {
    await runtime();
    s = await seedAccount();
    [hook, callback, botHook] = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
    const w = await s.admin.api.post(`${s.base}/webhooks`, {
      url: hook.url,
      name: 'all',
      subscriptions: [
        'conversation_created',
        'conversation_updated',
        'conversation_status_changed',
        'message_created',
        'message_updated',
        'contact_created',
        'contact_updated',
      ],
    });
    expect(w.status).toBe(200);
    secret = w.body.secret;
    const i = await s.admin.api.post(`${s.base}/inboxes`, { name: 'API', channel: { type: 'api', webhook_url: callback.url } });
    expect(i.status).toBe(200);
    inbox = i.body;
    const c = await s.admin.api.post(`${s.base}/contacts`, { name: 'Ada', email: `${unique('ada')}@example.com` });
    contactId = c.body.payload.contact.id;
  });
  afterAll(async () => {
    await Promise.all([hook.close(), callback.close(), botHook.close()]);
  });

  // Latency is measured by `npm run bench` (write → webhook p50/p95), not by a stopwatch in a test.
  it('delivers a signed message_created to a subscribed webhook', async () => {
    const conv = await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inbox.id, contact_id: contactId });
    expect(conv.status).toBe(200);
    const msg = await s.admin.api.post(`${s.base}/conversations/${conv.body.id}/messages`, { content: 'Hello there' });
    expect(msg.status).toBe(200);
    const got = await until(() => of(hook, 'message_created', (j) => j.id === msg.body.id)[0], WAIT);

    expect(chatwootValid(got, secret)).toBe(true);
    expect(() =>
      new Webhook(secret).verify(got.body, {
        'webhook-id': String(got.headers['webhook-id']),
        'webhook-timestamp': String(got.headers['webhook-timestamp']),
        'webhook-signature': String(got.headers['webhook-signature']),
      }),
    ).not.toThrow();
    const j = got.json;
    expect(j).toMatchObject({
      event: 'message_created',
      id: msg.body.id,
      content: 'Hello there',
      content_type: 'text',
      message_type: 'outgoing',
      private: false,
      sender: { id: s.admin.id, type: 'user' },
      inbox: { id: inbox.id, name: 'API' },
      account: { id: s.accountId },
      conversation: { id: conv.body.id, inbox_id: inbox.id, status: 'open', channel: 'Channel::Api' },
    });
    expect(j.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(j.conversation.meta.sender).toMatchObject({ id: contactId, name: 'Ada', type: 'contact' });
    expect(j.conversation.contact_inbox).toMatchObject({ inbox_id: inbox.id, contact_id: contactId });

    // The API inbox's callback gets it too, without subscribing, signed with the inbox's HMAC token.
    const cb = await until(() => of(callback, 'message_created', (x) => x.id === msg.body.id)[0], WAIT);
    expect(chatwootValid(cb, inbox.hmac_token)).toBe(true);
    // Activity messages are never delivered.
    expect(hook.received.filter((r) => r.json?.message_type === 'activity')).toEqual([]);
  });

  it('announces conversation creation, status changes with their changed attributes, and contacts', async () => {
    const conv = await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inbox.id, contact_id: contactId });
    await until(() => of(hook, 'conversation_created', (j) => j.id === conv.body.id)[0], WAIT);
    await s.admin.api.post(`${s.base}/conversations/${conv.body.id}/toggle_status`, { status: 'resolved' });
    const changed = await until(() => of(hook, 'conversation_status_changed', (j) => j.id === conv.body.id)[0], WAIT);
    expect(changed.json.status).toBe('resolved');
    expect(changed.json.changed_attributes).toEqual([{ status: { previous_value: 'open', current_value: 'resolved' } }]);
    const updated = await until(() => of(hook, 'conversation_updated', (j) => j.id === conv.body.id && j.status === 'resolved')[0], WAIT);
    expect(updated.json.changed_attributes).toEqual(
      expect.arrayContaining([{ status: { previous_value: 'open', current_value: 'resolved' } }]),
    );

    const c = await s.admin.api.post(`${s.base}/contacts`, { name: 'Bob', email: `${unique('bob')}@example.com` });
    const created = await until(() => of(hook, 'contact_created', (j) => j.id === c.body.payload.contact.id)[0], WAIT);
    expect(created.json).toMatchObject({ name: 'Bob', account: { id: s.accountId } });
    await s.admin.api.patch(`${s.base}/contacts/${c.body.payload.contact.id}`, { name: 'Robert' });
    const upd = await until(() => of(hook, 'contact_updated', (j) => j.id === c.body.payload.contact.id)[0], WAIT);
    expect(upd.json.name).toBe('Robert');
    expect(upd.json.changed_attributes).toEqual(expect.arrayContaining([{ name: { previous_value: 'Bob', current_value: 'Robert' } }]));
  });

  it('applies a matching automation rule, announces what it did, and never lets a rule trigger a rule', async () => {
    const rule = await s.admin.api.post(`${s.base}/automation_rules`, {
      name: 'Refunds to billing',
      event_name: 'message_created',
      conditions: [
        { attribute_key: 'message_type', filter_operator: 'equal_to', values: ['incoming'], query_operator: 'and' },
        { attribute_key: 'content', filter_operator: 'contains', values: ['refund'], query_operator: null },
      ],
      actions: [{ action_name: 'add_label', action_params: ['billing'] }],
    });
    expect(rule.status).toBe(200);
    // A rule on conversation_updated would fire on the label change if rule-made changes triggered rules.
    const loop = await s.admin.api.post(`${s.base}/automation_rules`, {
      name: 'Would loop',
      event_name: 'conversation_updated',
      conditions: [{ attribute_key: 'labels', filter_operator: 'equal_to', values: ['billing'], query_operator: null }],
      actions: [{ action_name: 'add_label', action_params: ['looped'] }],
    });
    expect(loop.status).toBe(200);

    const conv = await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inbox.id, contact_id: contactId });
    await s.admin.api.post(`${s.base}/conversations/${conv.body.id}/messages`, {
      content: 'I want a REFUND please',
      message_type: 'incoming',
    });
    const updated = await until(
      () => of(hook, 'conversation_updated', (j) => j.id === conv.body.id && j.labels?.includes('billing'))[0],
      WAIT,
    );
    expect(updated.json.changed_attributes).toEqual(
      expect.arrayContaining([{ label_list: { previous_value: [], current_value: ['billing'] } }]),
    );
    expect((await s.admin.api.get(`${s.base}/conversations/${conv.body.id}/labels`)).body.payload).toEqual(['billing']);

    // The same label added by a person does trigger the second rule…
    const other = await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inbox.id, contact_id: contactId });
    await s.admin.api.post(`${s.base}/conversations/${other.body.id}/labels`, { labels: ['billing'] });
    const labelsOf = async (id: number) => (await s.admin.api.get(`${s.base}/conversations/${id}/labels`)).body.payload as string[];
    expect(
      await until(async () => ((await labelsOf(other.body.id)).includes('looped') ? labelsOf(other.body.id) : undefined), WAIT),
    ).toEqual(['billing', 'looped']);
    // …while the rule-made change, dispatched well before, did not.
    expect(await labelsOf(conv.body.id)).toEqual(['billing']);
  });

  it('sends a bot its inbox’s message events, signed with its token, and lets the bot act only on its allow-list', async () => {
    const bot = await s.admin.api.post(`${s.base}/agent_bots`, { name: 'Helper', outgoing_url: botHook.url });
    expect(bot.status).toBe(200);
    const i = await s.admin.api.post(`${s.base}/inboxes`, { name: 'Bot inbox', channel: { type: 'api' } });
    await s.admin.api.post(`${s.base}/inboxes/${i.body.id}/set_agent_bot`, { agent_bot: bot.body.id });
    const conv = await s.admin.api.post(`${s.base}/conversations`, { inbox_id: i.body.id, contact_id: contactId });
    expect(conv.body.status).toBe('pending');
    const msg = await s.admin.api.post(`${s.base}/conversations/${conv.body.id}/messages`, { content: 'hi bot', message_type: 'incoming' });
    const got = await until(() => of(botHook, 'message_created', (j) => j.id === msg.body.id)[0], WAIT);
    expect(chatwootValid(got, bot.body.access_token)).toBe(true);
    expect(got.json).toMatchObject({ message_type: 'incoming', conversation: { id: conv.body.id, status: 'pending' } });

    const asBot = (await import('../../support/runtime.ts')).client((await runtime()).baseUrl, bot.body.access_token);
    const handoff = await asBot.post(`${s.base}/conversations/${conv.body.id}/toggle_status`, { status: 'open' });
    expect(handoff.status).toBe(200);
    await until(() => of(botHook, 'conversation_opened', (j) => j.id === conv.body.id)[0], WAIT);
    expectErrorBody(await asBot.get(`${s.base}/conversations`), 403);
    expectErrorBody(await asBot.get(`${s.base}/contacts`), 403);
  });

  it('keeps one conversation’s events in order', async () => {
    const conv = await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inbox.id, contact_id: contactId });
    const ids: number[] = [];
    for (let n = 0; n < 6; n++)
      ids.push((await s.admin.api.post(`${s.base}/conversations/${conv.body.id}/messages`, { content: `m${n}` })).body.id);
    const got = await until(() => {
      const list = of(hook, 'message_created', (j) => j.conversation?.id === conv.body.id);
      return list.length >= 6 ? list : undefined;
    }, WAIT);
    expect(got.map((g) => g.json.id)).toEqual(ids);
  });

  it('announces typing to subscribed webhooks and to the API inbox callback', async () => {
    const r = await startReceiver();
    try {
      await s.admin.api.post(`${s.base}/webhooks`, { url: r.url, subscriptions: ['conversation_typing_on', 'conversation_typing_off'] });
      const conv = await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inbox.id, contact_id: contactId });
      const on = await s.admin.api.post(`${s.base}/conversations/${conv.body.id}/toggle_typing_status`, {
        typing_status: 'on',
        is_private: true,
      });
      expect(on.status).toBe(200);
      await s.admin.api.post(`${s.base}/conversations/${conv.body.id}/toggle_typing_status`, { typing_status: 'off' });
      const got = await r.waitFor(2);
      expect(got.map((g) => g.json.event)).toEqual(['conversation_typing_on', 'conversation_typing_off']);
      expect(got[0].json).toMatchObject({ user: { id: s.admin.id, type: 'user' }, conversation: { id: conv.body.id }, is_private: true });
      await until(() => of(callback, 'conversation_typing_off', (j) => j.conversation?.id === conv.body.id)[0], WAIT);
      expectErrorBody(
        await s.admin.api.post(`${s.base}/conversations/${conv.body.id}/toggle_typing_status`, { typing_status: 'maybe' }),
        422,
      );
    } finally {
      await r.close();
    }
  });

  it('gets every event to a receiver that was down for a while, once each, in order', async () => {
    const r = await startReceiver();
    try {
      let downUntil = Date.now() + 2500;
      r.respond(() => (Date.now() < downUntil ? { status: 503 } : { status: 200 }));
      const w = await s.admin.api.post(`${s.base}/webhooks`, { url: r.url, subscriptions: ['message_created'] });
      expect(w.status).toBe(200);
      const conv = await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inbox.id, contact_id: contactId });
      const ids: number[] = [];
      for (let n = 0; n < 5; n++)
        ids.push((await s.admin.api.post(`${s.base}/conversations/${conv.body.id}/messages`, { content: `while down ${n}` })).body.id);
      const got = await r.waitFor(5, 40_000);
      expect(got.map((g) => g.json.id)).toEqual(ids);
      expect(new Set(got.map((g) => g.headers['x-chatwoot-delivery'])).size).toBe(5);
      await new Promise((res) => setTimeout(res, 1500));
      expect(r.received).toHaveLength(5);
      downUntil = 0;
    } finally {
      await r.close();
    }
  }, 60_000);

  it('posts the conversation to a rule’s send_webhook_event URL, and inbox events to subscribers', async () => {
    const r = await startReceiver();
    try {
      const rule = await s.admin.api.post(`${s.base}/automation_rules`, {
        name: 'Tell the CRM',
        event_name: 'conversation_created',
        conditions: [{ attribute_key: 'inbox_id', filter_operator: 'equal_to', values: [inbox.id], query_operator: null }],
        actions: [{ action_name: 'send_webhook_event', action_params: [r.url] }],
      });
      expect(rule.status).toBe(200);
      await s.admin.api.post(`${s.base}/webhooks`, { url: r.url, subscriptions: ['inbox_created'] });
      const conv = await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inbox.id, contact_id: contactId });
      const sent = await until(() => of(r, 'automation_event.conversation_created', (j) => j.id === conv.body.id)[0], WAIT);
      expect(sent.json).toMatchObject({ id: conv.body.id, inbox_id: inbox.id, status: 'open', meta: { sender: { id: contactId } } });
      const created = await s.admin.api.post(`${s.base}/inboxes`, { name: 'Announced', channel: { type: 'api' } });
      const announced = await until(() => of(r, 'inbox_created', (j) => j.id === created.body.id)[0], WAIT);
      expect(announced.json).toMatchObject({ name: 'Announced', channel_type: 'Channel::Api' });
      expect(announced.json).not.toHaveProperty('hmac_token');
    } finally {
      await r.close();
    }
  });
});
