import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, runtime, seedAccount, unique, type Client, type SeededAccount } from '../../support/runtime.ts';
import { connectCable, type CableClient } from '../../support/cable.ts';
import { addInboxMembers, newInbox, ok } from '../conversations/fixtures.ts';
import { openWidget, widgetInbox } from '../widget/fixtures.ts';

// Chatwoot's /cable on the local runtime's own port, with a real websocket client: the ActionCable
// protocol, RoomChannel's authorisation, who hears what (from the event pipeline), presence, bad input.

const MAX_SUBSCRIPTIONS = 10;
/** Frames a socket may send in a minute (shared/realtime/protocol.ts). */
const MAX_FRAMES_PER_MINUTE = 30;

interface Visitor {
  source_id: string;
  pubsub_token: string;
  id: number;
}

describe('/cable', () => {
  let baseUrl: string;
  let s: SeededAccount;
  let member: { id: number; token: string; api: Client };
  let inbox: { id: number; inbox_identifier: string };
  let pub: Client;
  const open: CableClient[] = [];
  const tokens = new Map<number, string>();

  const connect = async (protocols?: string[]) => {
    const c = await connectCable(baseUrl, { protocols });
    open.push(c);
    await c.waitFor((f) => f.type === 'welcome');
    return c;
  };
  const confirmed = (c: CableClient, identifier: string) =>
    c
      .waitFor((f) => (f.type === 'confirm_subscription' || f.type === 'reject_subscription' ? f.identifier === identifier : false))
      .then((f) => f.type);

  /** A user's dashboard socket: subscribed with the profile's pubsub token, the account and the user id. */
  const userSocket = async (u: { id: number; api: Client }) => {
    const c = await connect();
    const id = c.subscribe({ pubsub_token: tokens.get(u.id), account_id: s.accountId, user_id: u.id });
    expect(await confirmed(c, id)).toBe('confirm_subscription');
    return { c, id };
  };
  const newVisitor = async (): Promise<Visitor> =>
    ok(await pub.post(`/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts`, { name: unique('Visitor ') }), 'public contact');
  /** The Flutter SDK's socket: no sub-protocol, the contact inbox's pubsub token. */
  const contactSocket = async (v: Visitor) => {
    const c = await connect([]);
    const id = c.subscribe({ pubsub_token: v.pubsub_token });
    expect(await confirmed(c, id)).toBe('confirm_subscription');
    return { c, id };
  };
  const publicConversation = async (v: Visitor) =>
    ok(
      await pub.post(`/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts/${v.source_id}/conversations`, {}),
      'public conversation',
    ) as { id: number };
  const contactSays = async (v: Visitor, conv: number, content: string) =>
    ok(
      await pub.post(`/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts/${v.source_id}/conversations/${conv}/messages`, {
        content,
      }),
      'public message',
    );

  beforeAll(async () => {
    baseUrl = (await runtime()).baseUrl;
    pub = client(baseUrl);
    s = await seedAccount();
    const u = ok(
      await s.platform.post('/platform/api/v1/users', { name: 'Member', email: `${unique('m')}@example.com`, password: 'Passw0rd!' }),
      'user',
    );
    ok(await s.platform.post(`/platform/api/v1/accounts/${s.accountId}/account_users`, { user_id: u.id, role: 'agent' }), 'link');
    member = { id: u.id, token: u.access_token, api: client(baseUrl, u.access_token) };
    inbox = (await newInbox(s)) as never;
    // s.agent stays outside the inbox.
    await addInboxMembers(s, inbox.id, [member.id]);
    for (const x of [s.admin, s.agent, member]) {
      const profile = ok(await x.api.get('/api/v1/profile'), 'profile');
      expect(profile.pubsub_token).toMatch(/^[\w-]{16,}$/);
      tokens.set(x.id, profile.pubsub_token);
    }
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
  });

  it('rejects subscriptions of a suspended account, users and contacts alike, and accepts them again once reactivated', async () => {
    const other = await seedAccount();
    const otherInbox = (await newInbox(other)) as unknown as { inbox_identifier: string };
    const visitor = ok(
      await pub.post(`/public/api/v1/inboxes/${otherInbox.inbox_identifier}/contacts`, { name: unique('Visitor ') }),
      'contact',
    ) as Visitor;
    const adminToken = ok(await other.admin.api.get('/api/v1/profile'), 'profile').pubsub_token as string;
    const setStatus = async (status: string) =>
      ok(await other.platform.patch(`/platform/api/v1/accounts/${other.accountId}`, { status }), 'status');
    const tryBoth = async () => {
      const c = await connect();
      const asUser = c.subscribe({ pubsub_token: adminToken, account_id: other.accountId, user_id: other.admin.id });
      const asContact = c.subscribe({ pubsub_token: visitor.pubsub_token });
      return [await confirmed(c, asUser), await confirmed(c, asContact)];
    };
    await setStatus('suspended');
    expect(await tryBoth()).toEqual(['reject_subscription', 'reject_subscription']);
    await setStatus('active');
    expect(await tryBoth()).toEqual(['confirm_subscription', 'confirm_subscription']);
  });

  it('greets with welcome on the actioncable sub-protocol and pings every 3 seconds', async () => {
    const c = await connectCable(baseUrl);
    open.push(c);
    expect(c.protocol).toBe('actioncable-v1-json');
    const first = await c.waitFor(() => true);
    expect(first).toEqual({ type: 'welcome' });
    const p1 = await c.waitFor((f) => f.type === 'ping');
    expect(Number.isInteger(p1.message)).toBe(true);
    expect(Math.abs(p1.message - Date.now() / 1000)).toBeLessThan(5);
    await c.waitFor((f) => f.type === 'ping' && f.message > p1.message);
    const pings = c.received.filter((r) => r.frame.type === 'ping');
    // Two pings about 3 s apart: the @rails/actioncable monitor (stale after 6 s) stays calm.
    expect(pings[1].frame.message - pings[0].frame.message).toBeGreaterThanOrEqual(2);
    expect(pings[1].frame.message - pings[0].frame.message).toBeLessThanOrEqual(4);
  });

  it('serves clients that offer no sub-protocol (the Flutter SDK)', async () => {
    const c = await connectCable(baseUrl, { protocols: [] });
    open.push(c);
    expect(c.protocol).toBe('');
    expect(await c.waitFor(() => true)).toEqual({ type: 'welcome' });
  });

  it('widget/config tells the widget where the socket is, and its visitor subscribes there', async () => {
    const w = await widgetInbox(s);
    const session = await openWidget(client(baseUrl), w);
    const url = (session as any).websocket_url as string;
    expect(url).toBe(`${baseUrl.replace(/^http/, 'ws')}/cable`);
    const c = await connectCable(url.replace(/^ws/, 'http').replace(/\/cable$/, ''));
    open.push(c);
    await c.waitFor((f) => f.type === 'welcome');
    const id = c.subscribe({ pubsub_token: session.contact.pubsub_token });
    expect(await confirmed(c, id)).toBe('confirm_subscription');
  });

  it('confirms a valid pubsub token and rejects unknown, mismatched or foreign ones', async () => {
    const v = await newVisitor();
    const c = await connect();
    const good = c.subscribe({ pubsub_token: v.pubsub_token });
    expect(await confirmed(c, good)).toBe('confirm_subscription');
    const user = c.subscribe({ pubsub_token: tokens.get(s.admin.id), account_id: s.accountId, user_id: s.admin.id });
    expect(await confirmed(c, user)).toBe('confirm_subscription');

    const other = await seedAccount();
    const cases = [
      { pubsub_token: 'nope-not-a-token' },
      { pubsub_token: tokens.get(s.admin.id), account_id: s.accountId, user_id: member.id },
      { pubsub_token: tokens.get(s.admin.id), account_id: other.accountId, user_id: s.admin.id },
      { pubsub_token: tokens.get(s.admin.id), account_id: s.accountId, user_id: 'x' },
      { pubsub_token: 42 },
    ];
    for (const params of cases) {
      const id = c.subscribe(params);
      expect(await confirmed(c, id), JSON.stringify(params)).toBe('reject_subscription');
    }
    const unknownChannel = JSON.stringify({ channel: 'AdminChannel', pubsub_token: v.pubsub_token });
    c.send({ command: 'subscribe', identifier: unknownChannel });
    expect(await confirmed(c, unknownChannel)).toBe('reject_subscription');
    // Identifiers are echoed exactly as sent.
    expect(c.received.some((r) => r.frame.identifier === good && r.frame.type === 'confirm_subscription')).toBe(true);
  });

  it('a contact gets the agent reply and never a private note; agents get both', async () => {
    const v = await newVisitor();
    const conv = await publicConversation(v);
    const contact = await contactSocket(v);
    const admin = await userSocket(s.admin);
    const path = `${s.base}/conversations/${conv.id}/messages`;
    ok(await s.admin.api.post(path, { content: 'Internal: check the invoice', private: true }), 'note');
    const reply = ok(await s.admin.api.post(path, { content: 'Hello from support' }), 'reply');

    const got = await contact.c.waitForEvent('message.created', (d) => d.id === reply.id);
    expect(got).toMatchObject({
      id: reply.id,
      content: 'Hello from support',
      account_id: s.accountId,
      inbox_id: inbox.id,
      conversation_id: conv.id,
      message_type: 1,
      private: false,
      sender_type: 'User',
      sender: { id: s.admin.id, type: 'user' },
      conversation: { contact_inbox: { source_id: v.source_id } },
    });
    expect(typeof got.created_at).toBe('number');
    expect(typeof got.updated_at).toBe('string');
    const frame = contact.c.received.find((r) => r.frame.message?.data?.id === reply.id)!.frame;
    expect(frame.identifier).toBe(contact.id);
    // The note was written first: by the time the reply arrived, it would have too.
    expect(contact.c.events('message.created', (d) => d.private === true)).toEqual([]);
    expect(contact.c.events('message.created', (d) => d.content?.startsWith('Internal'))).toEqual([]);

    const note = await admin.c.waitForEvent('message.created', (d) => d.private === true && d.conversation_id === conv.id);
    expect(note.content).toBe('Internal: check the invoice');
  });

  it('an administrator and an inbox member get a new conversation and its incoming message; an agent outside the inbox and another contact get nothing', async () => {
    const admin = await userSocket(s.admin);
    const inMember = await userSocket(member);
    const outsider = await userSocket(s.agent);
    const stranger = await contactSocket(await newVisitor());

    const v = await newVisitor();
    const conv = await publicConversation(v);
    const msg = await contactSays(v, conv.id, 'I need help');

    for (const u of [admin, inMember]) {
      const created = await u.c.waitForEvent('conversation.created', (d) => d.id === conv.id);
      expect(created).toMatchObject({
        id: conv.id,
        inbox_id: inbox.id,
        account_id: s.accountId,
        status: 'open',
        meta: { sender: { id: v.id, type: 'contact' } },
      });
      expect(created.contact_inbox).toMatchObject({ source_id: v.source_id, pubsub_token: v.pubsub_token });
      const m = await u.c.waitForEvent('message.created', (d) => d.id === msg.id);
      expect(m).toMatchObject({
        content: 'I need help',
        message_type: 0,
        sender_type: 'Contact',
        sender: { id: v.id, type: 'contact' },
        account_id: s.accountId,
      });
    }
    // A barrier each: an event they do hear, raised after the ones they must not.
    ok(await s.admin.api.patch(`${s.base}/contacts/${v.id}`, { name: 'Renamed Visitor' }), 'rename');
    const renamed = await outsider.c.waitForEvent('contact.updated', (d) => d.id === v.id && d.name === 'Renamed Visitor');
    expect(renamed).toMatchObject({ name: 'Renamed Visitor', type: 'contact', account_id: s.accountId });
    stranger.c.send({ command: 'message', identifier: stranger.id, data: JSON.stringify({ action: 'update_presence' }) });
    await stranger.c.waitFor(
      (f) =>
        f.message?.event === 'presence.update' &&
        stranger.c.received.filter((r) => r.frame.message?.event === 'presence.update').length >= 2,
    );
    for (const u of [outsider.c, stranger.c]) {
      expect(u.events('conversation.created', (d) => d.id === conv.id)).toEqual([]);
      expect(u.events('message.created', (d) => d.id === msg.id)).toEqual([]);
    }
    // Contacts never hear contact events.
    expect(stranger.c.events('contact.updated')).toEqual([]);
  });

  it('tells typing and status changes to the contact and the inbox members, not to the typist', async () => {
    const v = await newVisitor();
    const conv = await publicConversation(v);
    const contact = await contactSocket(v);
    const admin = await userSocket(s.admin);
    const inMember = await userSocket(member);

    ok(await s.admin.api.post(`${s.base}/conversations/${conv.id}/toggle_typing_status`, { typing_status: 'on' }), 'typing');
    const on = await contact.c.waitForEvent('conversation.typing_on', (d) => d.conversation?.id === conv.id);
    expect(on).toMatchObject({
      account_id: s.accountId,
      is_private: false,
      user: { id: s.admin.id, type: 'user' },
      conversation: { id: conv.id },
    });
    await inMember.c.waitForEvent('conversation.typing_on', (d) => d.conversation?.id === conv.id);

    ok(
      await pub.post(`/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts/${v.source_id}/conversations/${conv.id}/toggle_typing`, {
        typing_status: 'on',
      }),
      'contact typing',
    );
    const fromContact = await admin.c.waitForEvent('conversation.typing_on', (d) => d.user?.type === 'contact');
    expect(fromContact.user).toMatchObject({ id: v.id });

    ok(await s.admin.api.post(`${s.base}/conversations/${conv.id}/toggle_status`, { status: 'resolved' }), 'resolve');
    for (const c of [contact.c, inMember.c]) {
      const st = await c.waitForEvent('conversation.status_changed', (d) => d.id === conv.id);
      expect(st).toMatchObject({ id: conv.id, status: 'resolved', account_id: s.accountId });
    }
    // The typist heard neither their own typing, nor does the contact hear its own.
    expect(admin.c.events('conversation.typing_on', (d) => d.user?.type === 'user' && d.user.id === s.admin.id)).toEqual([]);
    expect(contact.c.events('conversation.typing_on', (d) => d.user?.type === 'contact')).toEqual([]);
  });

  it('tells an assignment to the inbox: assignee.changed, and the assignee its notification.created', async () => {
    const v = await newVisitor();
    const conv = await publicConversation(v);
    const admin = await userSocket(s.admin);
    const inMember = await userSocket(member);
    ok(await s.admin.api.post(`${s.base}/conversations/${conv.id}/assignments`, { assignee_id: member.id }), 'assign');
    const changed = await admin.c.waitForEvent('assignee.changed', (d) => d.id === conv.id);
    expect(changed).toMatchObject({
      id: conv.id,
      account_id: s.accountId,
      meta: { assignee: { id: member.id, type: 'user' }, assignee_type: 'User' },
    });
    const note = await inMember.c.waitForEvent('notification.created', (d) => d.notification?.primary_actor_id === conv.id);
    expect(note).toMatchObject({
      account_id: s.accountId,
      notification: { notification_type: 'conversation_assignment', account_id: s.accountId },
    });
    expect(note.unread_count).toBeGreaterThanOrEqual(1);
    expect(note.count).toBeGreaterThanOrEqual(note.unread_count);
    // Another user's notification never reaches the administrator's socket.
    await inMember.c.waitForEvent('assignee.changed', (d) => d.id === conv.id);
    expect(admin.c.events('notification.created', (d) => d.notification?.primary_actor_id === conv.id)).toEqual([]);
  });

  it('tells the agents when the contact reads, and names the user who made a change (performer)', async () => {
    const v = await newVisitor();
    const conv = await publicConversation(v);
    const contact = await contactSocket(v);
    const inMember = await userSocket(member);
    const outsider = await userSocket(s.agent);

    ok(
      await pub.post(
        `/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts/${v.source_id}/conversations/${conv.id}/update_last_seen`,
        {},
      ),
      'read',
    );
    const read = await inMember.c.waitForEvent('conversation.read', (d) => d.id === conv.id);
    expect(read).toMatchObject({ id: conv.id, account_id: s.accountId, inbox_id: inbox.id });
    expect(typeof read.contact_last_seen_at).toBe('number');
    // A contact's own reading is the user's business only; a contact made no change, so no performer.
    expect(read.performer).toBeUndefined();

    ok(
      await s.admin.api.post(`${s.base}/conversations/${conv.id}/custom_attributes`, { custom_attributes: { plan: 'gold' } }),
      'attributes',
    );
    // The contact hears conversation.updated as Chatwoot's widget does, with the administrator as performer.
    const updated = await contact.c.waitForEvent('conversation.updated', (d) => d.id === conv.id && d.custom_attributes?.plan === 'gold');
    expect(updated.performer).toMatchObject({ id: s.admin.id, type: 'user', name: expect.any(String) });
    const seen = await inMember.c.waitForEvent('conversation.updated', (d) => d.id === conv.id && d.custom_attributes?.plan === 'gold');
    expect(seen.performer).toMatchObject({ id: s.admin.id, type: 'user' });
    // Barrier for the outsider: a contact event everyone hears, raised after the read.
    ok(await s.admin.api.patch(`${s.base}/contacts/${v.id}`, { name: 'After read' }), 'rename');
    await outsider.c.waitForEvent('contact.updated', (d) => d.id === v.id && d.name === 'After read');
    expect(outsider.c.events('conversation.read', (d) => d.id === conv.id)).toEqual([]);
    expect(contact.c.events('conversation.read')).toEqual([]);
  });

  it('tells every user of the account that a contact was deleted', async () => {
    const v = await newVisitor();
    const outsider = await userSocket(s.agent);
    const admin = await userSocket(s.admin);
    const res = await s.admin.api.delete(`${s.base}/contacts/${v.id}`);
    expect(res.status).toBe(200);
    for (const c of [outsider.c, admin.c]) {
      const gone = await c.waitForEvent('contact.deleted', (d) => d.id === v.id);
      expect(gone).toMatchObject({ id: v.id, type: 'contact', account_id: s.accountId, name: expect.stringContaining('Visitor') });
    }
  });

  it('announces a contact merge as Chatwoot does: contact.merged with the survivor, contact.deleted for the mergee, the conversation’s contact change', async () => {
    const survivor = await newVisitor();
    const mergee = await newVisitor();
    const conv = await publicConversation(mergee);
    const admin = await userSocket(s.admin);
    const merged = ok(
      await s.admin.api.post(`${s.base}/actions/contact_merge`, { base_contact_id: survivor.id, mergee_contact_id: mergee.id }),
      'merge',
    );
    expect(merged.id).toBe(survivor.id);
    const heard = await admin.c.waitForEvent('contact.merged', (d) => d.id === survivor.id);
    expect(heard).toMatchObject({ id: survivor.id, type: 'contact', account_id: s.accountId });
    expect(await admin.c.waitForEvent('contact.deleted', (d) => d.id === mergee.id)).toMatchObject({
      id: mergee.id,
      account_id: s.accountId,
    });
    expect(await admin.c.waitForEvent('conversation.contact_changed', (d) => d.id === conv.id)).toMatchObject({
      id: conv.id,
      account_id: s.accountId,
    });
  });

  it('applies a role change to live subscriptions without a reconnect', async () => {
    const other = await seedAccount();
    const otherInbox = (await newInbox(other)) as unknown as { id: number; inbox_identifier: string };
    const profile = ok(await other.agent.api.get('/api/v1/profile'), 'profile');
    const c = await connect();
    const id = c.subscribe({ pubsub_token: profile.pubsub_token, account_id: other.accountId, user_id: other.agent.id });
    expect(await confirmed(c, id)).toBe('confirm_subscription');
    const visitor = async () =>
      ok(
        await pub.post(`/public/api/v1/inboxes/${otherInbox.inbox_identifier}/contacts`, { name: unique('Visitor ') }),
        'contact',
      ) as Visitor;
    const start = async (x: Visitor) =>
      ok(
        await pub.post(`/public/api/v1/inboxes/${otherInbox.inbox_identifier}/contacts/${x.source_id}/conversations`, {}),
        'conversation',
      ) as { id: number };

    // An agent outside the inbox hears nothing of it; promoted to administrator, it hears the next one.
    const adminSocket = await connect();
    const adminProfile = ok(await other.admin.api.get('/api/v1/profile'), 'admin profile');
    const adminId = adminSocket.subscribe({
      pubsub_token: adminProfile.pubsub_token,
      account_id: other.accountId,
      user_id: other.admin.id,
    });
    expect(await confirmed(adminSocket, adminId)).toBe('confirm_subscription');
    const before = await start(await visitor());
    // Broadcast (to the administrator) before the promotion, so the agent's role then was still agent.
    await adminSocket.waitForEvent('conversation.created', (d) => d.id === before.id);
    ok(await other.admin.api.patch(`${other.base}/agents/${other.agent.id}`, { role: 'administrator' }), 'promote');
    const after = await start(await visitor());
    await c.waitForEvent('conversation.created', (d) => d.id === after.id);
    expect(c.events('conversation.created', (d) => d.id === before.id)).toEqual([]);
  });

  it('keeps a conversation’s events in order', async () => {
    const v = await newVisitor();
    const conv = await publicConversation(v);
    const contact = await contactSocket(v);
    const path = `${s.base}/conversations/${conv.id}/messages`;
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(ok(await s.admin.api.post(path, { content: `reply ${i}` }), 'reply').id);
    await contact.c.waitForEvent('message.created', (d) => d.id === ids[4]);
    expect(contact.c.events('message.created').map((d) => d.id)).toEqual(ids);
  });

  it('presence: update_presence answers with who is online and announces newcomers to the agents', async () => {
    const admin = await userSocket(s.admin);
    // Subscribing marks present: the admin's own presence comes back.
    const own = await admin.c.waitForEvent('presence.update', (d) => d.users?.[String(s.admin.id)]);
    expect(own.account_id).toBe(s.accountId);
    expect(['online', 'busy', 'offline']).toContain(own.users[String(s.admin.id)]);
    expect(typeof own.contacts).toBe('object');

    const v = await newVisitor();
    const contact = await contactSocket(v);
    // The Flutter SDK sends data as an object; ActionCable clients as a JSON string. Both count.
    contact.c.send({ command: 'message', identifier: contact.id, data: { action: 'update_presence' } });
    const announced = await admin.c.waitForEvent('presence.update', (d) => d.contacts?.[String(v.id)] === 'online');
    expect(announced.users[String(s.admin.id)]).toBeDefined();
    const toContact = await contact.c.waitForEvent('presence.update', (d) => d.users?.[String(s.admin.id)]);
    // Contacts learn which agents are online, not which other contacts are.
    expect(toContact.contacts).toBeUndefined();
  });

  it('ignores or refuses bad input without hurting other connections', async () => {
    const v = await newVisitor();
    const conv = await publicConversation(v);
    const bystander = await contactSocket(v);
    const bad = await connect();

    bad.sendRaw('this is not json');
    bad.sendRaw('[1,2,3]');
    bad.send({ command: 'dance', identifier: '{}' });
    bad.send({ command: 'subscribe', identifier: 'not json' });
    bad.send({
      command: 'message',
      identifier: JSON.stringify({ channel: 'RoomChannel', pubsub_token: v.pubsub_token }),
      data: '{"action":"update_presence"}',
    });
    // As many subscribes as the minute's frames allow (5 went above): each answered, no more than the limit accepted.
    const subscribes = MAX_FRAMES_PER_MINUTE - 5;
    for (let i = 0; i < subscribes; i++)
      bad.send({ command: 'subscribe', identifier: JSON.stringify({ channel: 'RoomChannel', pubsub_token: v.pubsub_token, n: i }) });
    await bad.waitFor(
      () =>
        bad.received.filter((r) => r.frame.type === 'confirm_subscription' || r.frame.type === 'reject_subscription').length >= subscribes,
      60_000,
    );
    expect(bad.received.filter((r) => r.frame.type === 'confirm_subscription').length).toBe(MAX_SUBSCRIPTIONS);

    // A 1 MB frame: the sender's connection is closed (as API Gateway does above 128 KB); nobody else notices.
    bad.sendRaw(Buffer.alloc(1024 * 1024, 'a'));
    const { code } = await bad.closed;
    expect(code).toBe(1009);

    const reply = ok(await s.admin.api.post(`${s.base}/conversations/${conv.id}/messages`, { content: 'still here' }), 'reply');
    await bystander.c.waitForEvent('message.created', (d) => d.id === reply.id);
    const pings = () => bystander.c.received.filter((r) => r.frame.type === 'ping').length;
    const before = pings();
    await bystander.c.waitFor(() => pings() > before);
  }, 300_000);
});
