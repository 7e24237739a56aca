import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, runtime, seedAccount, unique, type SeededAccount, fieldsOf } from '../../support/runtime.ts';

// Teams and team members (Chatwoot TeamsController, TeamMembersController): administrators write,
// every user of the account reads.

const ids = (agents: { id: number }[]) => agents.map((a) => a.id).sort((a, b) => a - b);

describe('teams', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  beforeAll(async () => {
    await runtime();
    [s, other] = await Promise.all([seedAccount(), seedAccount()]);
  });

  it('creates (lower-cased name), lists, shows, updates and deletes teams', async () => {
    const name = unique('Sales-');
    const created = await s.admin.api.post(`${s.base}/teams`, { name, description: 'Closers' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: name.toLowerCase(),
      description: 'Closers',
      allow_auto_assign: true,
      account_id: s.accountId,
      is_member: false,
    });
    const rooted = await s.admin.api.post(`${s.base}/teams`, { team: { name: unique('support-'), allow_auto_assign: 'false' } });
    expect(rooted.body).toMatchObject({ description: null, allow_auto_assign: false });

    const list = await s.agent.api.get(`${s.base}/teams`);
    expect(list.status).toBe(200);
    expect(list.body.map((t: { id: number }) => t.id)).toEqual([created.body.id, rooted.body.id]);
    expect((await s.agent.api.get(`${s.base}/teams/${created.body.id}`)).body).toEqual(created.body);

    const updated = await s.admin.api.patch(`${s.base}/teams/${created.body.id}`, {
      name: 'Renamed',
      description: null,
      allow_auto_assign: false,
    });
    expect(updated.body).toEqual({ ...created.body, name: 'renamed', description: null, allow_auto_assign: false });
    expect((await s.admin.api.put(`${s.base}/teams/${created.body.id}`, { team: { description: 'x' } })).body.description).toBe('x');

    // Names are unique per account, case-insensitively; a rename frees the old name.
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/teams`, { name: 'RENAMED' }), 422))).toEqual({ name: 'taken' });
    expect(fieldsOf(expectErrorBody(await s.admin.api.patch(`${s.base}/teams/${rooted.body.id}`, { name: 'renamed' }), 422))).toEqual({
      name: 'taken',
    });
    expect((await s.admin.api.post(`${s.base}/teams`, { name })).status).toBe(200);
    expect((await other.admin.api.post(`${other.base}/teams`, { name: 'renamed' })).status).toBe(200);

    const gone = await s.admin.api.delete(`${s.base}/teams/${created.body.id}`);
    expect(gone.status).toBe(200);
    expect(gone.text).toBe('');
    expectErrorBody(await s.admin.api.get(`${s.base}/teams/${created.body.id}`), 404);
    expectErrorBody(await s.admin.api.delete(`${s.base}/teams/${created.body.id}`), 404);
    expect((await s.admin.api.post(`${s.base}/teams`, { name: 'renamed' })).status).toBe(200);
  });

  it('validates with 422 and guards roles and accounts', async () => {
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/teams`, {}), 422))).toEqual({ name: 'required' });
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/teams`, { name: ' ' }), 422))).toEqual({ name: 'required' });
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/teams`, { name: 'ok', allow_auto_assign: 'maybe' }), 422))).toEqual({
      allow_auto_assign: 'invalid',
    });
    const team = (await s.admin.api.post(`${s.base}/teams`, { name: unique('guarded-') })).body;
    expectErrorBody(await s.agent.api.post(`${s.base}/teams`, { name: unique('x') }), 403);
    expectErrorBody(await s.agent.api.patch(`${s.base}/teams/${team.id}`, { name: 'x' }), 403);
    expectErrorBody(await s.agent.api.delete(`${s.base}/teams/${team.id}`), 403);
    expectErrorBody(await other.admin.api.get(`${other.base}/teams/${team.id}`), 404);
    expectErrorBody(await other.admin.api.patch(`${other.base}/teams/${team.id}`, { name: 'x' }), 404);
    expectErrorBody(await other.admin.api.delete(`${other.base}/teams/${team.id}`), 404);
    expectErrorBody(await other.admin.api.get(`${s.base}/teams`), 404);
    expect((await s.admin.api.get(`${s.base}/teams/${team.id}`)).body.name).toBe(team.name);
  });

  describe('members', () => {
    it('adds, lists, replaces and removes members; is_member follows', async () => {
      const team = (await s.admin.api.post(`${s.base}/teams`, { name: unique('members-') })).body;
      const path = `${s.base}/teams/${team.id}/team_members`;
      const added = await s.admin.api.post(path, { user_ids: [s.agent.id] });
      expect(added.status).toBe(200);
      expect(added.body).toEqual([
        expect.objectContaining({
          id: s.agent.id,
          account_id: s.accountId,
          role: 'agent',
          email: expect.any(String),
          available_name: expect.any(String),
        }),
      ]);
      // Only the newly added come back from create.
      expect(ids((await s.admin.api.post(path, { user_ids: [s.agent.id, s.admin.id] })).body)).toEqual([s.admin.id]);
      expect(ids((await s.agent.api.get(path)).body)).toEqual([s.admin.id, s.agent.id].sort((a, b) => a - b));
      expect((await s.agent.api.get(`${s.base}/teams/${team.id}`)).body.is_member).toBe(true);
      expect((await s.agent.api.get(`${s.base}/teams`)).body.find((t: { id: number }) => t.id === team.id).is_member).toBe(true);

      expect(ids((await s.admin.api.patch(path, { user_ids: [s.admin.id] })).body)).toEqual([s.admin.id]);
      expect((await s.agent.api.get(`${s.base}/teams/${team.id}`)).body.is_member).toBe(false);
      const removed = await s.admin.api.delete(path, { user_ids: [s.admin.id] });
      expect(removed.status).toBe(200);
      expect((await s.admin.api.get(path)).body).toEqual([]);
    });

    it('refuses strangers (422), foreign teams (404) and agents (403)', async () => {
      const team = (await s.admin.api.post(`${s.base}/teams`, { name: unique('strict-') })).body;
      const path = `${s.base}/teams/${team.id}/team_members`;
      expect(fieldsOf(expectErrorBody(await s.admin.api.post(path, { user_ids: [other.admin.id] }), 422))).toEqual({ user_ids: 'invalid' });
      expect(fieldsOf(expectErrorBody(await s.admin.api.post(path, {}), 422))).toEqual({ user_ids: 'required' });
      expectErrorBody(await s.agent.api.post(path, { user_ids: [s.agent.id] }), 403);
      expectErrorBody(await s.agent.api.patch(path, { user_ids: [s.agent.id] }), 403);
      expectErrorBody(await s.agent.api.delete(path, { user_ids: [s.agent.id] }), 403);
      expectErrorBody(await other.admin.api.get(`${other.base}/teams/${team.id}/team_members`), 404);
      expectErrorBody(await other.admin.api.post(`${other.base}/teams/${team.id}/team_members`, { user_ids: [other.agent.id] }), 404);
      expectErrorBody(await s.admin.api.post(`${s.base}/teams/999999999/team_members`, { user_ids: [s.agent.id] }), 404);
      expect((await s.admin.api.get(path)).body).toEqual([]);
    });

    it('deleting a team removes its memberships', async () => {
      const team = (await s.admin.api.post(`${s.base}/teams`, { name: unique('short-lived-') })).body;
      await s.admin.api.post(`${s.base}/teams/${team.id}/team_members`, { user_ids: [s.agent.id] });
      await s.admin.api.delete(`${s.base}/teams/${team.id}`);
      const { listUserTeamIds } = await import('#shared/db/repositories/teams.ts');
      expect(await listUserTeamIds(s.accountId, s.agent.id)).not.toContain(team.id);
    });
  });
});
