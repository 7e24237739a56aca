import { beforeAll, describe, expect, it } from 'vitest';
import { client, expectErrorBody, runtime, seedAccount, unique, type SeededAccount, fieldsOf } from '../../support/runtime.ts';
import { addInboxMembers, newContact, newConversation, newInbox, newTeam, ok } from '../conversations/fixtures.ts';
import { sdk, sdkError } from './sdk.ts';

const ids = (list: { id: number }[]) => list.map((a) => a.id).sort((a, b) => a - b);

describe('agents: add, change, remove (n8n agent node, @figuro/chatwoot-sdk), assignable agents', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  let base: string;
  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    s = await seedAccount();
    other = await seedAccount();
  });

  it('adds a new person with the n8n node body, and an existing user by email through the SDK', async () => {
    const email = `${unique('new')}@example.com`;
    // n8n: name, email, role, and availability_status/auto_offline from its additional fields.
    const created = await s.admin.api.post(`${s.base}/agents`, {
      name: 'Nina New',
      email: email.toUpperCase(),
      role: 'agent',
      availability_status: 'busy',
      auto_offline: false,
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      id: expect.any(Number),
      account_id: s.accountId,
      name: 'Nina New',
      email,
      role: 'agent',
      availability_status: 'busy',
      auto_offline: false,
      confirmed: true,
      available_name: 'Nina New',
      thumbnail: '',
    });
    // The other account's agent is an existing user: the SDK adds them here as an administrator.
    const existing = await sdk(base, s.admin.token).agents.create({
      accountId: s.accountId,
      data: {
        name: 'ignored for existing users',
        email: (await other.agent.api.get('/api/v1/profile')).body.email,
        role: 'administrator',
      } as never,
    });
    expect(existing).toMatchObject({ id: other.agent.id, role: 'administrator', availability_status: 'offline', auto_offline: true });
    expect(ids((await s.agent.api.get(`${s.base}/agents`)).body)).toEqual(
      [s.admin.id, s.agent.id, created.body.id, other.agent.id].sort((a, b) => a - b),
    );
    // Their own token now reaches this account too.
    expect((await other.agent.api.get(`${s.base}/inboxes`)).status).toBe(200);

    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/agents`, { name: 'Again', email }), 422))).toEqual({
      email: 'taken',
    });
    expect(
      fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/agents`, { agent: { email: 'not-an-email', role: 'owner' } }), 422)),
    ).toEqual({
      name: 'required',
      email: 'invalid',
      role: 'invalid',
    });
  });

  it('changes name, role, availability and auto_offline (n8n update body, Rails root key)', async () => {
    const a = ok(await s.admin.api.post(`${s.base}/agents`, { name: 'Upd', email: `${unique('upd')}@example.com` }), 'agent');
    const res = await s.admin.api.patch(`${s.base}/agents/${a.id}`, {
      name: 'Updated',
      role: 'administrator',
      availability_status: 'available',
      auto_offline: false,
    });
    expect(res.body).toMatchObject({
      id: a.id,
      name: 'Updated',
      role: 'administrator',
      availability_status: 'online',
      auto_offline: false,
    });
    const put = await s.admin.api.put(`${s.base}/agents/${a.id}`, { agent: { availability: 'busy', role: 'agent' } });
    expect(put.body).toMatchObject({ name: 'Updated', role: 'agent', availability_status: 'busy', auto_offline: false });
    const listed = (await s.admin.api.get(`${s.base}/agents`)).body.find((x: { id: number }) => x.id === a.id);
    expect(listed).toMatchObject({ name: 'Updated', role: 'agent', availability_status: 'busy' });
    expect(fieldsOf(expectErrorBody(await s.admin.api.patch(`${s.base}/agents/${a.id}`, { availability: 'asleep' }), 422))).toEqual({
      availability: 'invalid',
    });
    expectErrorBody(await s.admin.api.patch(`${s.base}/agents/${other.admin.id}`, { name: 'x' }), 404);
  });

  it('removes an agent from the account: memberships gone, conversations unassigned, a user it made deleted', async () => {
    const person = ok(await s.admin.api.post(`${s.base}/agents`, { name: 'Leaver', email: `${unique('leave')}@example.com` }), 'agent');
    const [inbox, contact] = await Promise.all([newInbox(s), newContact(s)]);
    await addInboxMembers(s, inbox.id, [person.id, s.agent.id]);
    const team = await newTeam(s, [person.id]);
    const mine = await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id, assignee_id: person.id });
    const resolved = await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id, assignee_id: person.id, status: 'resolved' });
    const theirs = await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id, assignee_id: s.agent.id });
    expect(mine.meta.assignee.id).toBe(person.id);
    const metaBefore = (await s.admin.api.get(`${s.base}/conversations/meta?inbox_id=${inbox.id}`)).body.meta;

    const gone = await sdk(base, s.admin.token).agents.delete({ accountId: s.accountId, id: person.id });
    expect(gone).toBe('');
    expect(ids((await s.admin.api.get(`${s.base}/agents`)).body)).not.toContain(person.id);
    expect(ids((await s.admin.api.get(`${s.base}/inbox_members/${inbox.id}`)).body.payload)).toEqual([s.agent.id]);
    expect((await s.admin.api.get(`${s.base}/teams/${team.id}/team_members`)).body).toEqual([]);
    for (const c of [mine, resolved]) {
      const shown = (await s.admin.api.get(`${s.base}/conversations/${c.id}`)).body;
      expect(shown.meta.assignee).toBeFalsy();
    }
    expect((await s.admin.api.get(`${s.base}/conversations/${theirs.id}`)).body.meta.assignee.id).toBe(s.agent.id);
    const metaAfter = (await s.admin.api.get(`${s.base}/conversations/meta?inbox_id=${inbox.id}`)).body.meta;
    expect(metaAfter.unassigned_count).toBe(metaBefore.unassigned_count + 1);
    expect(metaAfter.all_count).toBe(metaBefore.all_count);
    expectErrorBody(await s.admin.api.delete(`${s.base}/agents/${person.id}`), 404);
    // The person this account made belongs nowhere now: the user is gone (the email is free again).
    expect((await s.admin.api.post(`${s.base}/agents`, { name: 'Back', email: person.email })).body.id).not.toBe(person.id);
  });

  it('keeps a platform-made user when removing them from one account', async () => {
    const joined = ok(
      await other.admin.api.post(`${other.base}/agents`, { name: 'x', email: (await s.agent.api.get('/api/v1/profile')).body.email }),
      'join',
    );
    expect(joined.id).toBe(s.agent.id);
    expect((await other.admin.api.delete(`${other.base}/agents/${s.agent.id}`)).status).toBe(200);
    expectErrorBody(await s.agent.api.get(`${other.base}/inboxes`), 404);
    expect((await s.agent.api.get(`${s.base}/inboxes`)).status).toBe(200);
  });

  it('lists the agents assignable in inboxes: members of all of them, and every administrator', async () => {
    const t = await seedAccount();
    const both = ok(await t.admin.api.post(`${t.base}/agents`, { name: 'Both', email: `${unique('both')}@example.com` }), 'agent');
    const [a, b, hidden] = await Promise.all([newInbox(t), newInbox(t), newInbox(t)]);
    await addInboxMembers(t, a.id, [t.agent.id, both.id]);
    await addInboxMembers(t, b.id, [both.id]);
    const res = await t.admin.api.get(`${t.base}/assignable_agents?inbox_ids[]=${a.id}&inbox_ids[]=${b.id}`);
    expect(res.status).toBe(200);
    expect(ids(res.body.payload)).toEqual([t.admin.id, both.id].sort((x, y) => x - y));
    expect(res.body.payload.find((x: { id: number }) => x.id === both.id)).toMatchObject({
      role: 'agent',
      email: expect.stringContaining('@'),
    });
    expect(ids((await t.agent.api.get(`${t.base}/assignable_agents?inbox_ids[]=${a.id}`)).body.payload)).toEqual(
      [t.admin.id, t.agent.id, both.id].sort((x, y) => x - y),
    );
    // Inboxes the caller cannot see (an agent sees only their own), or of another account: 404.
    expectErrorBody(await t.agent.api.get(`${t.base}/assignable_agents?inbox_ids[]=${a.id}&inbox_ids[]=${b.id}`), 404);
    expectErrorBody(await t.agent.api.get(`${t.base}/assignable_agents?inbox_ids[]=${a.id}&inbox_ids[]=${hidden.id}`), 404);
    const foreign = await newInbox(other);
    expectErrorBody(await t.admin.api.get(`${t.base}/assignable_agents?inbox_ids[]=${foreign.id}`), 404);
    expect(fieldsOf(expectErrorBody(await t.admin.api.get(`${t.base}/assignable_agents`), 422))).toEqual({ inbox_ids: 'required' });
  });

  it('lets only administrators add, change and remove agents, and only in their account', async () => {
    const victim = ok(await s.admin.api.post(`${s.base}/agents`, { name: 'V', email: `${unique('v')}@example.com` }), 'agent');
    for (const res of [
      await s.agent.api.post(`${s.base}/agents`, { name: 'N', email: `${unique('n')}@example.com` }),
      await s.agent.api.patch(`${s.base}/agents/${victim.id}`, { role: 'administrator' }),
      await s.agent.api.delete(`${s.base}/agents/${victim.id}`),
    ]) {
      expect(expectErrorBody(res, 403).errors[0].code).toBe('forbidden');
    }
    expect((await sdkError(sdk(base, s.agent.token).agents.delete({ accountId: s.accountId, id: victim.id }))).status).toBe(403);
    for (const res of [
      await other.admin.api.post(`${s.base}/agents`, { name: 'N', email: `${unique('n')}@example.com` }),
      await other.admin.api.patch(`${other.base}/agents/${victim.id}`, { role: 'administrator' }),
      await other.admin.api.delete(`${other.base}/agents/${victim.id}`),
      await other.admin.api.get(`${s.base}/assignable_agents?inbox_ids[]=1`),
    ]) {
      expectErrorBody(res, 404);
    }
    expectErrorBody(await client(base, 'nope').get(`${s.base}/assignable_agents?inbox_ids[]=1`), 401);
    expect((await s.admin.api.get(`${s.base}/agents`)).body.find((x: { id: number }) => x.id === victim.id).role).toBe('agent');
  });
});
