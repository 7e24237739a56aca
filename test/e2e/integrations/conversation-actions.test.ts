import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, seedAccount, unique, type SeededAccount, fieldsOf } from '../../support/runtime.ts';
import { addInboxMembers, newContact, newConversation, newInbox, newTeam, ok, world, type World } from '../conversations/fixtures.ts';

const ids = (list: { id: number }[]) => list.map((a) => a.id).sort((a, b) => a - b);

describe('conversation actions: mute, unmute, unread, participants, bulk actions', () => {
  let w: World;
  let s: SeededAccount;
  let other: SeededAccount;
  beforeAll(async () => {
    w = await world();
    s = w.s;
    other = await seedAccount();
  });

  const show = async (id: number) => (await s.admin.api.get(`${s.base}/conversations/${id}`)).body;
  const activities = async (id: number) =>
    (await s.admin.api.get(`${s.base}/conversations/${id}/messages`)).body.payload
      .filter((m: { message_type: number }) => m.message_type === 2)
      .map((m: { content: string }) => m.content);

  it('mutes (resolved, contact blocked, messages no longer reopen it) and unmutes', async () => {
    const contact = await newContact(s);
    const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: contact.id });
    const muted = await s.agent.api.post(`${s.base}/conversations/${c.id}/mute`);
    expect(muted.status).toBe(200);
    expect(muted.text).toBe('');
    expect(await show(c.id)).toMatchObject({ status: 'resolved', muted: true });
    expect((await s.admin.api.get(`${s.base}/contacts/${contact.id}`)).body.payload.blocked).toBe(true);
    const agentName = (await s.agent.api.get('/api/v1/profile')).body.name;
    expect(await activities(c.id)).toEqual(expect.arrayContaining([`${agentName} has muted the conversation`]));
    ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'hello?', message_type: 'incoming' }), 'incoming');
    expect((await show(c.id)).status).toBe('resolved');

    expect((await s.agent.api.post(`${s.base}/conversations/${c.id}/unmute`)).status).toBe(200);
    expect((await show(c.id)).muted).toBe(false);
    expect((await s.admin.api.get(`${s.base}/contacts/${contact.id}`)).body.payload.blocked).toBe(false);
    expect(await activities(c.id)).toEqual(expect.arrayContaining([`${agentName} has unmuted the conversation`]));
    ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'anyone?', message_type: 'incoming' }), 'incoming');
    expect((await show(c.id)).status).toBe('open');
  });

  it('marks a conversation unread: last seen just before the last incoming message', async () => {
    const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id, assignee_id: s.agent.id });
    ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'ping', message_type: 'incoming' }), 'incoming');
    await s.agent.api.post(`${s.base}/conversations/${c.id}/update_last_seen`);
    expect((await show(c.id)).unread_count).toBe(0);
    const res = await s.agent.api.post(`${s.base}/conversations/${c.id}/unread`);
    expect(res.status).toBe(204);
    const after = await show(c.id);
    const lastIncoming = (await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`)).body.payload
      .filter((m: { message_type: number }) => m.message_type === 0)
      .at(-1);
    expect(after.unread_count).toBe(1);
    expect(after.agent_last_seen_at).toBe(lastIncoming.created_at - 1);
    expect(after.assignee_last_seen_at).toBe(lastIncoming.created_at - 1);
    // Without incoming messages nothing was ever seen.
    const quiet = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
    expect((await s.admin.api.post(`${s.base}/conversations/${quiet.id}/unread`)).status).toBe(204);
    expect(await show(quiet.id)).toMatchObject({ agent_last_seen_at: 0, unread_count: 0 });
  });

  it('keeps participants: add, replace, list, remove; only users who can reach the inbox', async () => {
    const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
    const base = `${s.base}/conversations/${c.id}/participants`;
    expect((await s.agent.api.get(base)).body).toEqual([]);
    const added = await s.agent.api.post(base, { user_ids: [s.agent.id] });
    expect(added.status).toBe(200);
    expect(added.body).toEqual([
      expect.objectContaining({ id: s.agent.id, account_id: s.accountId, role: 'agent', email: expect.any(String) }),
    ]);
    // Create answers only the ones it added.
    expect(ids((await s.admin.api.post(base, { user_ids: [s.agent.id, s.admin.id] })).body)).toEqual([s.admin.id]);
    expect(ids((await s.agent.api.get(base)).body)).toEqual([s.admin.id, s.agent.id].sort((a, b) => a - b));
    const replaced = await s.admin.api.patch(base, { user_ids: [s.admin.id] });
    expect(ids(replaced.body)).toEqual([s.admin.id]);
    expect(ids((await s.agent.api.get(base)).body)).toEqual([s.admin.id]);
    const removed = await s.admin.api.delete(base, { user_ids: [s.admin.id, 999999] });
    expect(removed.status).toBe(200);
    expect((await s.agent.api.get(base)).body).toEqual([]);

    // An agent outside the inbox, or a user of another account, cannot follow it.
    const outsider = ok(await s.admin.api.post(`${s.base}/agents`, { name: 'Out', email: `${unique('out')}@example.com` }), 'agent');
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(base, { user_ids: [outsider.id] }), 422))).toEqual({ user_ids: 'invalid' });
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(base, { user_ids: [other.admin.id] }), 422))).toEqual({ user_ids: 'invalid' });
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(base, { user_ids: 'x' }), 422))).toEqual({ user_ids: 'invalid' });
    await addInboxMembers(s, w.inbox.id, [outsider.id]);
    expect(ids((await s.admin.api.post(base, { user_ids: [outsider.id] })).body)).toEqual([outsider.id]);

    // Deleting the conversation takes its participants along.
    expect((await s.admin.api.delete(`${s.base}/conversations/${c.id}`)).status).toBe(200);
    expectErrorBody(await s.admin.api.get(base), 404);
  });

  it('applies bulk actions: labels, status, assignee, team (0 removes it), skipping what the agent cannot see', async () => {
    const team = await newTeam(s, [s.agent.id]);
    const hiddenInbox = await newInbox(s);
    const [a, b] = await Promise.all([
      newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id }),
      newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id }),
    ]);
    const hidden = await newConversation(s, { inbox_id: hiddenInbox.id, contact_id: w.contact.id });
    ok(await s.admin.api.post(`${s.base}/conversations/${a.id}/labels`, { labels: ['old', 'keep'] }), 'labels');
    // The dashboard's body.
    const res = await s.agent.api.post(`${s.base}/bulk_actions`, {
      type: 'Conversation',
      ids: [a.id, b.id, hidden.id, 999999],
      fields: { status: 'snoozed', assignee_id: s.agent.id, team_id: team.id },
      snoozed_until: Math.floor(Date.now() / 1000) + 3600,
      labels: { add: ['bulk'], remove: ['old'] },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    for (const id of [a.id, b.id]) {
      const c = await show(id);
      expect(c).toMatchObject({ status: 'snoozed', meta: { assignee: { id: s.agent.id }, team: { id: team.id } } });
      expect(Date.parse(c.snoozed_until)).toBeGreaterThan(Date.now());
    }
    expect((await show(a.id)).labels.sort()).toEqual(['bulk', 'keep']);
    expect((await show(b.id)).labels).toEqual(['bulk']);
    const untouched = await show(hidden.id);
    expect(untouched).toMatchObject({ status: 'open', labels: [] });
    expect(untouched.meta.assignee).toBeFalsy();

    // Team 0 removes the team; a null assignee unassigns; a null status changes nothing.
    ok(
      await s.admin.api.post(`${s.base}/bulk_actions`, {
        type: 'Conversation',
        ids: [a.id],
        fields: { team_id: 0, assignee_id: null, status: null },
      }),
      'bulk',
    );
    const cleared = await show(a.id);
    expect(cleared.status).toBe('snoozed');
    expect(cleared.meta.team).toBeFalsy();
    expect(cleared.meta.assignee).toBeFalsy();
    ok(
      await s.admin.api.post(`${s.base}/bulk_actions`, { type: 'Conversation', ids: [a.id, b.id], fields: { status: 'resolved' } }),
      'resolve',
    );
    expect([(await show(a.id)).status, (await show(b.id)).status]).toEqual(['resolved', 'resolved']);

    expect(
      fieldsOf(
        expectErrorBody(
          await s.admin.api.post(`${s.base}/bulk_actions`, { type: 'Conversation', ids: [a.id], fields: { assignee_id: other.admin.id } }),
          422,
        ),
      ),
    ).toEqual({ 'fields.assignee_id': 'invalid' });
    expect(
      fieldsOf(
        expectErrorBody(
          await s.admin.api.post(`${s.base}/bulk_actions`, { type: 'Conversation', ids: [a.id], fields: { team_id: 999999 } }),
          422,
        ),
      ),
    ).toEqual({ 'fields.team_id': 'invalid' });
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/bulk_actions`, { type: 'Invoice', ids: [] }), 422))).toEqual({
      type: 'invalid',
      ids: 'required',
    });
    expect((await show(a.id)).meta.assignee).toBeFalsy();
  });

  it('hides other accounts\u2019 conversations and answers agents 404 for conversations outside their inboxes', async () => {
    const hiddenInbox = await newInbox(s);
    const c = await newConversation(s, { inbox_id: hiddenInbox.id, contact_id: w.contact.id });
    for (const path of ['mute', 'unmute', 'unread', 'participants']) {
      expectErrorBody(
        await s.agent.api.post(`${s.base}/conversations/${c.id}/${path}`, path === 'participants' ? { user_ids: [s.admin.id] } : undefined),
        404,
      );
      expectErrorBody(
        await other.admin.api.post(
          `${other.base}/conversations/${c.id}/${path}`,
          path === 'participants' ? { user_ids: [other.admin.id] } : undefined,
        ),
        404,
      );
    }
    expectErrorBody(await s.agent.api.get(`${s.base}/conversations/${c.id}/participants`), 404);
    expectErrorBody(await other.admin.api.get(`${s.base}/conversations/${c.id}/participants`), 404);
    expectErrorBody(
      await other.admin.api.post(`${s.base}/bulk_actions`, { type: 'Conversation', ids: [c.id], fields: { status: 'resolved' } }),
      404,
    );
    // Another account's bulk action with the same display id touches only its own conversation.
    ok(
      await other.admin.api.post(`${other.base}/bulk_actions`, { type: 'Conversation', ids: [c.id], fields: { status: 'resolved' } }),
      'other bulk',
    );
    expect((await show(c.id)).status).toBe('open');
    expect((await show(c.id)).muted).toBe(false);
  });
});
