import { describe, expect, it } from 'vitest';
import { expectErrorBody } from '../../support/runtime.ts';
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
