import { createConsumer, type Consumer } from '@rails/actioncable';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cableUrl } from '../../support/cable.ts';
import { client, runtime, seedAccount, type Client, type SeededAccount } from '../../support/runtime.ts';
import { until } from '../../support/until.ts';
import { ok } from '../conversations/fixtures.ts';
import { browser, openWidget, widgetApi, widgetInbox, type WidgetSession } from '../widget/fixtures.ts';

// /cable through Rails' own ActionCable client (`@rails/actioncable`), subscribed as Chatwoot's dashboard does
// (RoomChannel with the user's pubsub token, the account and the user) and as its widget does (the contact's pubsub
// token): both hear `message.created`, typing and presence from the event pipeline.

// The client is browser code: it takes Node 22's global WebSocket, and its connection monitor listens for the page's
// `visibilitychange` on the global scope, which Node does not have.
const scope = globalThis as unknown as { addEventListener?: unknown; removeEventListener?: unknown };
scope.addEventListener ??= () => undefined;
scope.removeEventListener ??= () => undefined;

interface Heard {
  event: string;
  data: any;
}

/** A RoomChannel subscription through the client: every message it receives, and whether the server confirmed it. */
function subscribe(consumer: Consumer, params: Record<string, unknown>) {
  const heard: Heard[] = [];
  const state = { connected: false, rejected: false };
  const subscription = consumer.subscriptions.create(
    { channel: 'RoomChannel', ...params },
    {
      connected: () => {
        state.connected = true;
      },
      rejected: () => {
        state.rejected = true;
      },
      received: (message: Heard) => {
        heard.push(message);
      },
    },
  );
  const waitFor = (event: string, pred: (data: any) => boolean = () => true) =>
    until(() => heard.find((h) => h.event === event && pred(h.data))?.data, { what: `${event} on ${JSON.stringify(params)}` });
  return { subscription, heard, state, waitFor };
}

describe('@rails/actioncable against /cable', () => {
  let s: SeededAccount;
  let url: string;
  let visitor: WidgetSession;
  let widget: ReturnType<typeof widgetApi>;
  let conversationId: number;
  let admin: { id: number; pubsub_token: string };
  const consumers: Consumer[] = [];
  let api: Client;

  beforeAll(async () => {
    const rt = await runtime();
    url = cableUrl(rt.baseUrl);
    s = await seedAccount();
    api = client(rt.baseUrl, s.admin.token);
    const inbox = await widgetInbox(s);
    ok(await s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: inbox.id, user_ids: [s.admin.id] }), 'members');
    const page = await browser();
    visitor = await openWidget(page, inbox);
    widget = widgetApi(page, inbox, visitor.auth_token);
    const started = ok(await widget.post('/messages', { message: { content: 'Hello from the widget' } }), 'first message');
    conversationId = started.conversation_id;
    const profile = ok(await api.get('/api/v1/profile'), 'profile');
    admin = { id: profile.id, pubsub_token: profile.pubsub_token };
  });

  afterAll(() => {
    for (const c of consumers) c.disconnect();
  });

  const consumer = () => {
    const c = createConsumer(url);
    consumers.push(c);
    return c;
  };

  it('dashboard and widget subscriptions are confirmed and hear messages, typing and presence', async () => {
    const dashboard = subscribe(consumer(), { pubsub_token: admin.pubsub_token, account_id: s.accountId, user_id: admin.id });
    const visitorRoom = subscribe(consumer(), { pubsub_token: visitor.contact.pubsub_token, account_id: s.accountId });
    await until(() => dashboard.state.connected && visitorRoom.state.connected, { what: 'both subscriptions confirmed' });
    expect([dashboard.state.rejected, visitorRoom.state.rejected]).toEqual([false, false]);

    // Presence: the dashboard's periodic `update_presence` (performed through the client) answers who is online.
    dashboard.subscription.perform('update_presence');
    const presence = await dashboard.waitFor('presence.update', (d) => d.users?.[String(admin.id)]);
    expect(presence.account_id ?? s.accountId).toBe(s.accountId);
    visitorRoom.subscription.perform('update_presence');
    const seen = await dashboard.waitFor('presence.update', (d) => d.contacts?.[String(visitor.contact.id)] === 'online');
    expect(seen.contacts[String(visitor.contact.id)]).toBe('online');
    await visitorRoom.waitFor('presence.update', (d) => d.users?.[String(admin.id)]);

    // A visitor's message reaches the dashboard; the agent's reply reaches the widget.
    const said = ok(await widget.post('/messages', { message: { content: 'Are you there?' } }), 'visitor message');
    const toAgent = await dashboard.waitFor('message.created', (d) => d.id === said.id);
    expect(toAgent).toMatchObject({ id: said.id, content: 'Are you there?', conversation_id: conversationId, message_type: 0 });
    const reply = ok(
      await s.admin.api.post(`${s.base}/conversations/${conversationId}/messages`, { content: 'Yes, here!' }),
      'agent reply',
    );
    const toVisitor = await visitorRoom.waitFor('message.created', (d) => d.id === reply.id);
    expect(toVisitor).toMatchObject({ id: reply.id, content: 'Yes, here!', message_type: 1 });

    // Typing both ways.
    ok(await s.admin.api.post(`${s.base}/conversations/${conversationId}/toggle_typing_status`, { typing_status: 'on' }), 'agent typing');
    const agentTyping = await visitorRoom.waitFor('conversation.typing_on', (d) => d.conversation?.id === conversationId);
    expect(agentTyping.user).toMatchObject({ id: admin.id, type: 'user' });
    ok(await widget.post('/conversations/toggle_typing', { typing_status: 'on' }), 'visitor typing');
    const visitorTyping = await dashboard.waitFor('conversation.typing_on', (d) => d.user?.type === 'contact');
    expect(visitorTyping).toMatchObject({ conversation: { id: conversationId }, user: { id: visitor.contact.id } });
    ok(await widget.post('/conversations/toggle_typing', { typing_status: 'off' }), 'visitor stops');
    await dashboard.waitFor('conversation.typing_off', (d) => d.user?.type === 'contact');
  });

  it('rejects a subscription with a wrong pubsub token', async () => {
    const wrong = subscribe(consumer(), { pubsub_token: 'not-a-token', account_id: s.accountId, user_id: admin.id });
    await until(() => wrong.state.rejected || wrong.state.connected, { what: 'an answer to the subscription' });
    expect(wrong.state).toEqual({ connected: false, rejected: true });
  });
});
