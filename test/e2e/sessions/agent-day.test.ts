import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, runtime } from '../../support/runtime.ts';
import { newConversation, ok, world, type World } from '../conversations/fixtures.ts';
import { fromAddress, sessionClient, sessionHeadersOf } from './fixtures.ts';
import { until } from '../../support/until.ts';

// How long a wait of this file lasts before it fails.
const WAIT = { timeoutMs: 60_000 };

// An agent's day through the mobile app's calls, authenticated by nothing but the sign-in's session headers.
// The machine running the suite may be busy: these wait on scrypt and on the pipeline.
describe("an agent's day with session headers only", { timeout: 120_000 }, () => {
  let w: World;
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = (await runtime()).baseUrl;
    w = await world();
    ok(await w.s.admin.api.post(`${w.s.base}/labels`, { title: 'vip' }), 'label');
  });

  it('signs in, lists, opens, replies, assigns, labels, resolves, reads notifications, validates and signs out', async () => {
    const { s, inbox, contact } = w;
    const email = (await s.agent.api.get('/api/v1/profile')).body.email as string;

    const signIn = await fromAddress(baseUrl).post('/auth/sign_in', { email, password: 'Passw0rd!' });
    expect(signIn.status).toBe(200);
    const app = sessionClient(baseUrl, sessionHeadersOf(signIn));
    const accountId = signIn.body.data.account_id as number;
    expect(accountId).toBe(s.accountId);
    const base = `/api/v1/accounts/${accountId}`;

    // Settings screen: ask for notices of new conversations and of messages in conversations assigned to me.
    const settings = ok(await app.get(`${base}/notification_settings`), 'settings');
    ok(
      await app.put(`${base}/notification_settings`, {
        notification_settings: {
          selected_email_flags: settings.selected_email_flags,
          selected_push_flags: ['push_conversation_creation', 'push_conversation_assignment', 'push_assigned_conversation_new_message'],
        },
      }),
      'update settings',
    );
    ok(
      await app.post('/api/v1/notification_subscriptions', {
        subscription_type: 'fcm',
        subscription_attributes: { push_token: 'device-token', device_id: 'd1' },
      }),
      'push',
    );
    ok(await app.post('/api/v1/profile/availability', { profile: { availability: 'online', account_id: accountId } }), 'online');

    // A customer writes in.
    const conversation = await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id });
    ok(
      await s.admin.api.post(`${s.base}/conversations/${conversation.id}/messages`, {
        content: 'My order is late',
        message_type: 'incoming',
      }),
      'incoming',
    );

    // Inbox tab: the new conversation notice arrives.
    const notice = await until(async () => {
      const list = ok(
        await app.get(`${base}/notifications?sort_order=desc&includes[]=snoozed&includes[]=read&page=1`),
        'notifications',
      ).data;
      return list.payload.find(
        (n: { primary_actor_id: number; notification_type: string }) =>
          n.primary_actor_id === conversation.id && n.notification_type === 'conversation_creation',
      );
    }, WAIT);
    expect(notice.primary_actor.id).toBe(conversation.id);

    // Conversations tab, then open it.
    const list = ok(
      await app.get(`${base}/conversations?inbox_id=${inbox.id}&assignee_type=all&status=open&page=1&sort_by=latest`),
      'list',
    ).data;
    expect(list.payload.map((c: { id: number }) => c.id)).toContain(conversation.id);
    expect(ok(await app.get(`${base}/conversations/${conversation.id}`), 'show').id).toBe(conversation.id);
    const messages = ok(await app.get(`${base}/conversations/${conversation.id}/messages`), 'messages').payload;
    expect(messages.map((m: { content: string }) => m.content)).toContain('My order is late');
    ok(await app.post(`${base}/conversations/${conversation.id}/update_last_seen`), 'seen');

    // Take it, reply, label it.
    const me = signIn.body.data.id as number;
    ok(await app.post(`${base}/conversations/${conversation.id}/assignments`, { assignee_id: me }), 'assign');
    const reply = ok(
      await app.post(`${base}/conversations/${conversation.id}/messages`, { content: 'Looking into it', private: false }),
      'reply',
    );
    expect(reply).toMatchObject({ content: 'Looking into it', message_type: 1, sender: { id: me } });
    ok(await app.post(`${base}/conversations/${conversation.id}/labels`, { labels: ['vip'] }), 'label');

    // The customer answers: a notice about my assigned conversation.
    ok(
      await s.admin.api.post(`${s.base}/conversations/${conversation.id}/messages`, { content: 'Thanks!', message_type: 'incoming' }),
      'incoming 2',
    );
    await until(async () => {
      const list = ok(
        await app.get(`${base}/notifications?sort_order=desc&includes[]=snoozed&includes[]=read&page=1`),
        'notifications',
      ).data;
      return list.payload.some(
        (n: { notification_type: string; primary_actor_id: number }) =>
          n.notification_type === 'assigned_conversation_new_message' && n.primary_actor_id === conversation.id,
      );
    }, WAIT);
    expect(ok(await app.get(`${base}/notifications/unread_count`), 'unread')).toBeGreaterThanOrEqual(2);
    ok(
      await app.post(`${base}/notifications/read_all`, { primary_actor_type: 'Conversation', primary_actor_id: conversation.id }),
      'read conversation',
    );
    expect(ok(await app.get(`${base}/notifications/unread_count`), 'unread')).toBe(0);

    // Resolve.
    const resolved = ok(await app.post(`${base}/conversations/${conversation.id}/toggle_status`, { status: 'resolved' }), 'resolve');
    expect(resolved.payload.current_status).toBe('resolved');
    const shown = ok(await s.admin.api.get(`${s.base}/conversations/${conversation.id}`), 'admin view');
    expect(shown).toMatchObject({ status: 'resolved', labels: ['vip'], meta: { assignee: { id: me } } });

    // End of the day.
    expect((await app.get('/auth/validate_token')).body.payload.success).toBe(true);
    expect((await app.delete('/auth/sign_out')).status).toBe(200);
    expectErrorBody(await app.get(`${base}/conversations`), 401);
    expectErrorBody(await app.get(`${base}/notifications`), 401);
    expectErrorBody(await app.get('/auth/validate_token'), 401);
  }, 180_000);
});
