import { beforeAll, describe, expect, it } from 'vitest';
import { eventsOf } from '#shared/domain/events/domain-events.ts';
import { expectErrorBody, seedAccount, type SeededAccount, fieldsOf } from '../../support/runtime.ts';
import { streamChanges } from '../../support/stream.ts';
import { newBot, newConversation, ok, world, type World } from '../conversations/fixtures.ts';
import { until } from '../../support/until.ts';

type N = {
  id: number;
  notification_type: string;
  primary_actor_id: number;
  read_at: string | null;
  secondary_actor: any;
  primary_actor: any;
};

// The machine running the suite may be busy: these wait on scrypt and on the pipeline.
describe('notifications (created by the events pipeline)', { timeout: 120_000 }, () => {
  let w: World;
  let s: SeededAccount;
  let other: SeededAccount;
  const all = async (api = s.agent.api) =>
    ok(await api.get(`${s.base}/notifications?sort_order=desc&includes[]=snoozed&includes[]=read&page=1`), 'list').data.payload as N[];
  const about = async (convId: number, type: string, api = s.agent.api) =>
    (await all(api)).filter((n) => n.primary_actor_id === convId && n.notification_type === type);
  const waitFor = (convId: number, type: string, api = s.agent.api) => until(async () => (await about(convId, type, api))[0]);
  const assign = async (id: number, assignee: number, api = s.admin.api) =>
    ok(await api.post(`${s.base}/conversations/${id}/assignments`, { assignee_id: assignee }), 'assign');
  const post = async (id: number, body: Record<string, unknown>, api = s.admin.api) =>
    ok(await api.post(`${s.base}/conversations/${id}/messages`, body), 'message');
  const converse = () => newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id });

  beforeAll(async () => {
    w = await world();
    s = w.s;
    other = await seedAccount();
  });

  it('defaults: only assignment notifications; assigning a conversation to an agent notifies them', async () => {
    const settings = ok(await s.agent.api.get(`${s.base}/notification_settings`), 'settings');
    expect(settings).toEqual({
      id: s.agent.id,
      user_id: s.agent.id,
      account_id: s.accountId,
      all_email_flags: expect.arrayContaining([
        'email_conversation_creation',
        'email_conversation_assignment',
        'email_conversation_mention',
        'email_assigned_conversation_new_message',
      ]),
      selected_email_flags: ['email_conversation_assignment'],
      all_push_flags: expect.arrayContaining(['push_conversation_creation', 'push_conversation_mention']),
      selected_push_flags: ['push_conversation_assignment'],
    });
    const c = await converse();
    await assign(c.id, s.agent.id);
    const n = await waitFor(c.id, 'conversation_assignment');
    expect(n).toMatchObject({
      id: expect.any(Number),
      notification_type: 'conversation_assignment',
      push_message_title: `A conversation (#${c.id}) has been assigned to you`,
      primary_actor_type: 'Conversation',
      primary_actor_id: c.id,
      primary_actor: {
        id: c.id,
        inbox_id: w.inbox.id,
        meta: expect.objectContaining({ sender: expect.objectContaining({ id: w.contact.id }) }),
      },
      read_at: null,
      secondary_actor: null,
      user: expect.objectContaining({ id: s.agent.id, type: 'user' }),
      created_at: expect.any(Number),
      last_activity_at: expect.any(Number),
      snoozed_until: null,
      meta: {},
      account_id: s.accountId,
    });
    // Conversation creation was not asked for (defaults), and the creation event came first in this conversation.
    expect(await about(c.id, 'conversation_creation')).toEqual([]);
    // The notification is a domain event the realtime stage can broadcast.
    const changes = await streamChanges((ch) => ch.type === 'notification' && ch.newImage?.id === n.id);
    expect(eventsOf(changes[0]!).map((e) => [e.name, e.notification?.user_id])).toEqual([['notification_created', s.agent.id]]);
  });

  it('settings: PATCH/PUT (root key notification_settings), validated', async () => {
    const updated = await s.agent.api.patch(`${s.base}/notification_settings`, {
      notification_settings: {
        selected_email_flags: ['email_conversation_creation', 'email_conversation_mention'],
        selected_push_flags: ['push_conversation_assignment', 'push_assigned_conversation_new_message'],
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.selected_email_flags).toEqual(['email_conversation_creation', 'email_conversation_mention']);
    expect((await s.agent.api.get(`${s.base}/notification_settings`)).body.selected_push_flags).toEqual([
      'push_conversation_assignment',
      'push_assigned_conversation_new_message',
    ]);
    expect(
      fieldsOf(
        expectErrorBody(await s.agent.api.put(`${s.base}/notification_settings`, { selected_email_flags: ['email_everything'] }), 422),
      ),
    ).toEqual({
      selected_email_flags: 'invalid',
    });
    // Settings are per user and account.
    expect((await s.admin.api.get(`${s.base}/notification_settings`)).body.selected_email_flags).toEqual(['email_conversation_assignment']);
    expectErrorBody(await (await newBot(s)).api.get(`${s.base}/notification_settings`), 403);
    expectErrorBody(await s.agent.api.get(`${other.base}/notification_settings`), 404);
    expectErrorBody(await s.agent.api.patch(`${other.base}/notification_settings`, { selected_email_flags: [] }), 404);
  });

  it('conversation created: inbox members whose settings ask for it', async () => {
    const c = await converse();
    const n = await waitFor(c.id, 'conversation_creation');
    expect(n).toMatchObject({ primary_actor_id: c.id, secondary_actor: null });
    expect((n as any).push_message_title).toBe(`A conversation (#${c.id}) has been created in ${w.inbox.name}`);
    // The administrator is not a member of the inbox.
    expect(await about(c.id, 'conversation_creation', s.admin.api)).toEqual([]);
  });

  it('self-assignment does not notify; a mention in a private note does, once, with the message', async () => {
    const c = await converse();
    await assign(c.id, s.agent.id, s.agent.api);
    const note = await post(c.id, { content: `Please look [@agent](mention://user/${s.agent.id}/agent)`, private: true });
    const n = await waitFor(c.id, 'conversation_mention');
    expect(n.secondary_actor).toMatchObject({ id: note.id, content: note.content, private: true });
    expect((n as any).push_message_title).toBe(`You have been mentioned in conversation (#${c.id})`);
    // Processed in order: the earlier self-assignment made nothing; the mention is not also a new-message notice.
    expect(await about(c.id, 'conversation_assignment')).toEqual([]);
    expect(await about(c.id, 'assigned_conversation_new_message')).toEqual([]);
    // A mention in a public message, or of someone outside the account, notifies nobody.
    await post(c.id, { content: `see mention://user/${s.agent.id}/agent`, private: false });
    await post(c.id, { content: `[@x](mention://user/${other.agent.id}/x)`, private: true });
    const newMsg = await until(
      async () =>
        (await about(c.id, 'assigned_conversation_new_message')).length >= 2 && (await about(c.id, 'assigned_conversation_new_message')),
    );
    expect(newMsg).toHaveLength(2);
    expect(await about(c.id, 'conversation_mention')).toHaveLength(1);
    expect(ok(await other.agent.api.get(`${other.base}/notifications?includes[]=read`), 'other').data.payload).toEqual([]);
  });

  it('a new message in a conversation assigned to you notifies you, unless you sent it', async () => {
    const c = await converse();
    await assign(c.id, s.agent.id, s.agent.api);
    await post(c.id, { content: 'mine' }, s.agent.api);
    const incoming = await post(c.id, { content: 'from the customer', message_type: 'incoming' });
    const n = await waitFor(c.id, 'assigned_conversation_new_message');
    expect(n.secondary_actor).toMatchObject({ id: incoming.id, message_type: 0 });
    expect(await about(c.id, 'assigned_conversation_new_message')).toHaveLength(1);
  });

  it('a new message in a conversation you take part in notifies you (participants), not the sender', async () => {
    const c = await converse();
    ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/participants`, { user_ids: [s.agent.id, s.admin.id] }), 'participants');
    ok(
      await s.agent.api.patch(`${s.base}/notification_settings`, {
        selected_push_flags: [
          'push_conversation_assignment',
          'push_assigned_conversation_new_message',
          'push_participating_conversation_new_message',
        ],
      }),
      'settings',
    );
    ok(
      await s.admin.api.patch(`${s.base}/notification_settings`, { selected_push_flags: ['push_participating_conversation_new_message'] }),
      'settings',
    );
    const m = await post(c.id, { content: 'from a participant' });
    const n = await waitFor(c.id, 'participating_conversation_new_message');
    expect(n.secondary_actor).toMatchObject({ id: m.id });
    expect((n as any).push_message_title).toBe(`A new message is created in conversation (#${c.id})`);
    // The administrator sent it: nothing for them.
    expect(await about(c.id, 'participating_conversation_new_message', s.admin.api)).toEqual([]);
    ok(await s.admin.api.patch(`${s.base}/notification_settings`, { selected_push_flags: ['push_conversation_assignment'] }), 'reset');
  });

  it('lists with meta and pages, counts unread, marks read/unread, reads all, deletes; only your own', async () => {
    // A fresh agent view: everything so far, newest first.
    const list = ok(await s.agent.api.get(`${s.base}/notifications?includes[]=read`), 'list').data;
    const total = list.meta.count as number;
    expect(total).toBeGreaterThanOrEqual(5);
    expect(list.meta).toEqual({ unread_count: total, count: total, current_page: 1 });
    expect(list.payload.map((n: N) => n.id)).toEqual([...list.payload.map((n: N) => n.id)].sort((a: number, b: number) => b - a));
    expect(ok(await s.agent.api.get(`${s.base}/notifications/unread_count`), 'count')).toBe(total);

    const first = list.payload[0] as N;
    const read = await s.agent.api.patch(`${s.base}/notifications/${first.id}`, {});
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: first.id,
      read_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      user_id: s.agent.id,
      notification_type: first.notification_type,
    });
    expect(ok(await s.agent.api.get(`${s.base}/notifications/unread_count`), 'count')).toBe(total - 1);
    // Without includes[]=read only unread ones are listed (Chatwoot's NotificationFinder).
    const unreadOnly = ok(await s.agent.api.get(`${s.base}/notifications`), 'unread').data;
    expect(unreadOnly.meta).toMatchObject({ unread_count: total - 1, count: total - 1 });
    expect(unreadOnly.payload.map((n: N) => n.id)).not.toContain(first.id);
    expect((await s.agent.api.patch(`${s.base}/notifications/${first.id}`, {})).status).toBe(200);
    expect(ok(await s.agent.api.get(`${s.base}/notifications/unread_count`), 'count')).toBe(total - 1);
    const unread = await s.agent.api.post(`${s.base}/notifications/${first.id}/unread`);
    expect(unread.body.read_at).toBeNull();
    expect(ok(await s.agent.api.get(`${s.base}/notifications/unread_count`), 'count')).toBe(total);

    // read_all for one conversation (the mobile app's "mark as read"), then for all.
    const convId = first.primary_actor_id;
    const ofConv = list.payload.filter((n: N) => n.primary_actor_id === convId).length;
    expect(
      (await s.agent.api.post(`${s.base}/notifications/read_all`, { primary_actor_type: 'Conversation', primary_actor_id: convId })).status,
    ).toBe(200);
    expect(ok(await s.agent.api.get(`${s.base}/notifications/unread_count`), 'count')).toBe(total - ofConv);
    expect((await s.agent.api.post(`${s.base}/notifications/read_all`)).status).toBe(200);
    expect(ok(await s.agent.api.get(`${s.base}/notifications/unread_count`), 'count')).toBe(0);
    expect(
      ok(await s.agent.api.get(`${s.base}/notifications?includes[]=read`), 'all').data.payload.every((n: N) => n.read_at !== null),
    ).toBe(true);

    // Someone else's, another account's, absent: 404.
    expectErrorBody(await s.admin.api.patch(`${s.base}/notifications/${first.id}`, {}), 404);
    expectErrorBody(await s.admin.api.delete(`${s.base}/notifications/${first.id}`), 404);
    expectErrorBody(await other.agent.api.patch(`${other.base}/notifications/${first.id}`, {}), 404);
    expectErrorBody(await s.agent.api.get(`${other.base}/notifications`), 404);
    expectErrorBody(await s.agent.api.post(`${s.base}/notifications/abc/unread`), 404);

    const gone = await s.agent.api.delete(`${s.base}/notifications/${first.id}`);
    expect(gone.status).toBe(200);
    expect(ok(await s.agent.api.get(`${s.base}/notifications?includes[]=read`), 'after').data.meta.count).toBe(total - 1);
    expectErrorBody(await s.agent.api.delete(`${s.base}/notifications/${first.id}`), 404);
    expectErrorBody(await (await newBot(s)).api.get(`${s.base}/notifications`), 403);
  });

  it('pages by 15', async () => {
    const fresh = await world();
    const t = fresh.s;
    const ids: number[] = [];
    for (let i = 0; i < 16; i++) ids.push((await newConversation(t, { inbox_id: fresh.inbox.id, contact_id: fresh.contact.id })).id);
    for (const id of ids) ok(await t.admin.api.post(`${t.base}/conversations/${id}/assignments`, { assignee_id: t.agent.id }), 'assign');
    await until(async () => ok(await t.agent.api.get(`${t.base}/notifications/unread_count`), 'count') === 16, { timeoutMs: 90_000 });
    const p1 = ok(await t.agent.api.get(`${t.base}/notifications?page=1`), 'p1').data;
    const p2 = ok(await t.agent.api.get(`${t.base}/notifications?page=2`), 'p2').data;
    expect(p1.payload).toHaveLength(15);
    expect(p2.payload).toHaveLength(1);
    expect(p2.meta).toEqual({ unread_count: 16, count: 16, current_page: 2 });
    // The pipeline makes the 16 notifications in the order it handles their conversations' events, which
    // is per conversation, not across them: ascending is the exact reverse of the descending pages.
    const desc = [...p1.payload, ...p2.payload].map((n: N) => n.id);
    const asc = ok(await t.agent.api.get(`${t.base}/notifications?sort_order=asc`), 'asc').data.payload as N[];
    expect(asc.map((n) => n.id)).toEqual(desc.slice().reverse().slice(0, 15));
    expect(new Set([...p1.payload, ...p2.payload].map((n: N) => n.primary_actor_id))).toEqual(new Set(ids));
  }, 180_000);

  it('push subscriptions: the mobile app registers and removes its FCM token', async () => {
    const body = {
      subscription_type: 'fcm',
      subscription_attributes: {
        deviceName: 'Pixel',
        devicePlatform: 'android',
        apiLevel: '34',
        brandName: 'Google',
        buildNumber: '1',
        push_token: 'fcm-token-1',
        device_id: 'dev-1',
      },
    };
    const res = await s.agent.api.post('/api/v1/notification_subscriptions', body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      user_id: s.agent.id,
      subscription_type: 'fcm',
      identifier: 'fcm-token-1',
      subscription_attributes: { push_token: 'fcm-token-1', device_id: 'dev-1' },
    });
    expect(res.body.subscription_attributes).not.toHaveProperty('deviceName');
    expect(
      fieldsOf(
        expectErrorBody(
          await s.agent.api.post('/api/v1/notification_subscriptions', { subscription_type: 'fcm', subscription_attributes: {} }),
          422,
        ),
      ),
    ).toEqual({
      'subscription_attributes.push_token': 'required',
    });
    expect((await s.agent.api.delete('/api/v1/notification_subscriptions', { push_token: 'fcm-token-1' })).status).toBe(200);
    const { client, runtime } = await import('../../support/runtime.ts');
    const anonymous = client((await runtime()).baseUrl);
    expectErrorBody(await anonymous.post('/api/v1/notification_subscriptions', body), 401);
    expectErrorBody(await anonymous.delete('/api/v1/notification_subscriptions', { push_token: 'fcm-token-1' }), 401);
    expectErrorBody(await (await newBot(s)).api.post('/api/v1/notification_subscriptions', body), 401);
  });
});
