import { nextId } from '#shared/db/ids.ts';
import * as repo from '#shared/db/repositories/teams.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import type { Actor } from '#shared/model/actor.ts';
import { notFound } from '#shared/errors.ts';
import { agentsJson } from '../agents/view.ts';
import { requireAccountUsers } from '../inboxes/members.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import type { TeamRecord } from '#shared/model/teams.ts';
import type { NewTeam, TeamUpdate } from './schemas.ts';
import { teamJson } from './view.ts';

// Teams and their members: administrators write, everyone in the account reads.

const myTeams = async (accountId: number, actor: Actor) =>
  new Set(actor.type === 'user' ? await repo.listUserTeamIds(accountId, actor.user.id) : []);

async function teamOf(accountId: number, id: number, consistent = false): Promise<TeamRecord> {
  const team = await repo.getTeam(accountId, id, consistent);
  if (!team) throw notFound('Team');
  return team;
}

export async function listTeamsFor(account: AccountRecord, actor: Actor) {
  const [teams, mine] = await Promise.all([repo.listTeams(account.id), myTeams(account.id, actor)]);
  return teams.map((t) => teamJson(t, mine.has(t.id)));
}

export async function showTeam(account: AccountRecord, actor: Actor, id: number) {
  const [team, mine] = await Promise.all([teamOf(account.id, id), myTeams(account.id, actor)]);
  return teamJson(team, mine.has(team.id));
}

export async function createTeam(account: AccountRecord, input: NewTeam) {
  const at = now();
  const team: TeamRecord = {
    id: await nextId('team'),
    account_id: account.id,
    name: input.name,
    description: input.description ?? null,
    allow_auto_assign: input.allow_auto_assign ?? true,
    created_at: at,
    updated_at: at,
    version: 1,
  };
  await repo.saveTeam(undefined, team);
  return teamJson(team, false);
}

export async function updateTeam(account: AccountRecord, actor: Actor, id: number, input: TeamUpdate) {
  const team = await retryStale(async (consistent) => {
    if (input.name === undefined) {
      // Description and auto-assignment are replaced as sent (the last writer wins): no read needed.
      const set = { description: input.description, allow_auto_assign: input.allow_auto_assign, updated_at: now() };
      const saved = await repo.changeTeamAttributes(account.id, id, { set });
      if (!saved) throw notFound('Team');
      return saved;
    }
    const before = await teamOf(account.id, id, consistent);
    const after: TeamRecord = { ...before, updated_at: now(), version: before.version + 1 };
    if (input.name !== undefined) after.name = input.name;
    if (input.description !== undefined) after.description = input.description;
    if (input.allow_auto_assign !== undefined) after.allow_auto_assign = input.allow_auto_assign;
    await repo.saveTeam(before, after);
    return after;
  });
  return teamJson(team, (await myTeams(account.id, actor)).has(team.id));
}

export async function deleteTeam(account: AccountRecord, id: number) {
  await retryStale(async (consistent) => repo.deleteTeam(await teamOf(account.id, id, consistent)));
}

// ── members (Chatwoot TeamMembersController: bare arrays of agents) ──

export async function listTeamMembers(account: AccountRecord, teamId: number) {
  return agentsJson(account.id, (await membersOf(account, teamId)).current);
}

/** The team and its current member ids; `userIds`, when given, must be users of the account. */
async function membersOf(account: AccountRecord, teamId: number, userIds?: number[]) {
  const team = await teamOf(account.id, teamId);
  const [wanted, current] = await Promise.all([
    userIds ? requireAccountUsers(account.id, userIds) : ([] as number[]),
    repo.listTeamMemberIds(account.id, team.id),
  ]);
  return { team, wanted, current };
}

const changeMembers = (team: TeamRecord, add: number[], remove: number[]) => {
  const at = now();
  return repo.changeTeamMembers(
    team,
    add.map((user_id) => ({ account_id: team.account_id, team_id: team.id, user_id, created_at: at })),
    remove,
  );
};

/** Answers the agents that were added (Chatwoot's create). */
export async function addTeamMembers(account: AccountRecord, teamId: number, userIds: number[]) {
  const { team, wanted, current } = await membersOf(account, teamId, userIds);
  const add = wanted.filter((u) => !current.includes(u));
  await changeMembers(team, add, []);
  return agentsJson(account.id, add);
}

/** Makes the members exactly `userIds`; answers all members. */
export async function replaceTeamMembers(account: AccountRecord, teamId: number, userIds: number[]) {
  const { team, wanted, current } = await membersOf(account, teamId, userIds);
  await changeMembers(
    team,
    wanted.filter((u) => !current.includes(u)),
    current.filter((u) => !wanted.includes(u)),
  );
  return agentsJson(account.id, wanted);
}

export async function removeTeamMembers(account: AccountRecord, teamId: number, userIds: number[]) {
  const { team, current } = await membersOf(account, teamId);
  await changeMembers(
    team,
    [],
    userIds.filter((u) => current.includes(u)),
  );
}
