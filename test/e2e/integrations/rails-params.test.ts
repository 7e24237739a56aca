import { describe, expect, it } from 'vitest';
import { expectErrorBody, runtime, seedAccount } from '../../support/runtime.ts';
import { bodyOf, casesOf, entriesOf, refusedByChatwoot, routeSchemas } from '../../support/rails-probes.ts';
import { newConversation, newTeam, world } from '../conversations/fixtures.ts';

// Rails `params` hold query-string and body fields alike (the body's win): Chatwoot's mobile app sends
// some actions with their fields only in the query string.

describe('query-string parameters count like body fields', () => {
  it('assigns a team with POST …/assignments?team_id=N and no body, as the mobile app does', async () => {
    const { s, inbox, contact } = await world();
    const team = await newTeam(s, [s.agent.id]);
    const c = await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id });
    const res = await s.agent.api.request('POST', `${s.base}/conversations/${c.id}/assignments?team_id=${team.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: team.id, name: team.name });
    expect((await s.agent.api.get(`${s.base}/conversations/${c.id}`)).body.meta.team).toMatchObject({ id: team.id });

    // The body wins over the query string.
    const other = await newTeam(s);
    const both = await s.agent.api.post(`${s.base}/conversations/${c.id}/assignments?team_id=${team.id}`, { team_id: other.id });
    expect(both.body).toMatchObject({ id: other.id });
    // An agent by query string too; and the query's values are validated like the body's.
    const assigned = await s.admin.api.request('POST', `${s.base}/conversations/${c.id}/assignments?assignee_id=${s.agent.id}`);
    expect(assigned.body).toMatchObject({ id: s.agent.id });
    expect(
      expectErrorBody(await s.admin.api.request('POST', `${s.base}/conversations/${c.id}/toggle_status?status=sleeping`), 422).errors[0]
        .field,
    ).toBe('status');
    const toggled = await s.admin.api.request('POST', `${s.base}/conversations/${c.id}/toggle_status?status=resolved`);
    expect(toggled.body.payload).toMatchObject({ current_status: 'resolved', conversation_id: c.id });
  });
});

// Rails' parameter reading (docs/chatwoot.md#rails-parameters) over real HTTP: the bodies real clients send, then every
// probe of the generated table (test/support/rails-probes.ts) against every account and platform route.

describe('blank, zero and string parameters are read as Rails reads them', () => {
  it('creates a conversation with the n8n node’s blank ids, unassigned and without a team', async () => {
    const { s, inbox, contact } = await world();
    const c = await newConversation(s, {
      inbox_id: String(inbox.id),
      contact_id: String(contact.id),
      source_id: '',
      assignee_id: '',
      team_id: '',
      status: 'open',
      additional_attributes: {},
    });
    expect(c).toMatchObject({ inbox_id: inbox.id, status: 'open' });
    expect(c.meta.assignee ?? null).toBeNull();
    expect(c.meta.team ?? null).toBeNull();
    const nulls = await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id, assignee_id: null, team_id: 0 });
    expect(nulls.meta.assignee ?? null).toBeNull();
  });

  it('assigns with 0 as none: the agent with team_id 0 beside it, unassigns with assignee_id 0, removes the team with team_id 0', async () => {
    const { s, inbox, contact } = await world();
    const team = await newTeam(s, [s.agent.id]);
    const c = await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id, team_id: team.id });
    const path = `${s.base}/conversations/${c.id}/assignments`;
    const show = async () => (await s.admin.api.get(`${s.base}/conversations/${c.id}`)).body.meta;

    const assigned = await s.admin.api.post(path, { assignee_id: s.agent.id, team_id: 0 });
    expect(assigned.status).toBe(200);
    expect(assigned.body).toMatchObject({ id: s.agent.id });
    expect(await show()).toMatchObject({ assignee: { id: s.agent.id }, team: { id: team.id } });

    for (const none of [0, '0', '']) {
      expect((await s.admin.api.post(path, { assignee_id: s.agent.id })).status).toBe(200);
      const res = await s.admin.api.post(path, { assignee_id: none });
      expect(res.status).toBe(200);
      expect(res.body).toBeNull();
      expect((await show()).assignee ?? null).toBeNull();
    }
    const removed = await s.admin.api.post(path, { team_id: 0 });
    expect(removed.status).toBe(200);
    expect(removed.body).toBeNull();
    expect((await show()).team ?? null).toBeNull();
  });

  it('takes a blank avatar on contacts and inboxes: nothing on create, removed on update', async () => {
    const { s } = await world();
    const created = await s.admin.api.post(`${s.base}/contacts`, {
      inbox_id: 0,
      name: 'Blank Avatar',
      email: '',
      phone_number: '',
      avatar: '',
      avatar_url: '',
      identifier: '',
      custom_attributes: {},
    });
    expect(created.status).toBe(200);
    const contact = created.body.payload.contact;
    expect(contact).toMatchObject({ name: 'Blank Avatar', email: null, phone_number: null, identifier: null, thumbnail: '' });
    const pictured = await s.admin.api.put(`${s.base}/contacts/${contact.id}`, { avatar_url: 'https://example.com/a.png' });
    expect(pictured.status).toBe(200);
    const updated = await s.admin.api.put(`${s.base}/contacts/${contact.id}`, { name: 'Still Blank', avatar: null });
    expect(updated.status).toBe(200);
    expect(updated.body.payload).toMatchObject({ name: 'Still Blank', thumbnail: '' });

    const inbox = await s.admin.api.post(`${s.base}/inboxes`, { name: 'Blank avatar inbox', avatar: '', channel: { type: 'api' } });
    expect(inbox.status).toBe(200);
    const changed = await s.admin.api.patch(`${s.base}/inboxes/${inbox.body.id}`, {
      name: 'Renamed',
      enable_auto_assignment: 'false',
      avatar: '',
      channel: {},
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'Renamed', enable_auto_assignment: false, avatar_url: '' });
  });

  it('reads `key[]` query forms as lists: team members by query string alone', async () => {
    const { s } = await world();
    const team = await newTeam(s);
    const res = await s.admin.api.request('POST', `${s.base}/teams/${team.id}/team_members?user_ids[]=${s.agent.id}&user_ids[]=`);
    expect(res.status).toBe(200);
    expect((res.body as { id: number }[]).map((m) => m.id)).toEqual([s.agent.id]);
  });
});

describe('every probe of every account and platform route, over HTTP', () => {
  it('never answers 5xx, and refuses a probed field only where Chatwoot does', async () => {
    await runtime();
    const s = await seedAccount();
    const schemas = (await routeSchemas()).filter(({ route }) => route.api === 'account' || route.path.startsWith('/platform/'));
    const failures: string[] = [];
    let sent = 0;
    for (const { route, label, body } of schemas) {
      if (!route.path.startsWith('/api/v1/') && !route.path.startsWith('/platform/')) continue;
      const method = [route.method].flat()[0];
      if (method === 'GET') continue;
      // The account is the seeded one; any other id names nothing (validation comes first, then 404).
      const path = route.path.replace('{account_id}', String(s.accountId)).replace(/\{[^}]+\}/g, '999999999');
      const api = route.path.startsWith('/platform/') ? s.platform : s.admin.api;
      for (const { path: field, probe } of casesOf(label, entriesOf(body) ?? {})) {
        const name = `${label} ${field.join('.')}=${probe.name}`;
        const res = await api.request(method, path, bodyOf(field, probe.value));
        sent++;
        if (res.status >= 500) failures.push(`${name}: ${res.status} ${res.text.slice(0, 200)}`);
        else if (res.status === 422 && !refusedByChatwoot(name, field.at(-1)!, probe)) {
          // A value read right that names no record (`inbox_id: "7"`) is the service's 404-like refusal, not the reading's.
          const named = (res.body.errors as { field: string; code: string }[])
            .filter((e) => e.code !== 'not_found')
            .filter((e) => e.field === field.join('.') || e.field.startsWith(`${field.join('.')}.`));
          if (named.length) failures.push(`${name}: 422 ${JSON.stringify(named)}`);
        }
      }
    }
    expect(sent).toBeGreaterThanOrEqual(500);
    expect(failures).toEqual([]);
  }, 300_000);
});
