import * as keys from '../keys.ts';
import { check, del, put, transact, type TxItem } from '../transact.ts';
import type { TeamMemberRecord, TeamRecord } from '#shared/model/teams.ts';
import { notFound, taken } from '#shared/errors.ts';
import { getItem, getMany, queryPrefix, record } from './common.ts';
import { applyChanges, versionedDel, versionedPut, type AttributeChanges } from './versioned.ts';

// Access patterns of teams (AP30-35). An account's teams and their memberships share one partition;
// a membership also carries gsi1 so that a user's teams are one Query.

/** AP30: a team of an account. */
export const getTeam = (accountId: number, teamId: number, consistent = false) =>
  getItem<TeamRecord>(keys.team(accountId, teamId), consistent);

/** AP30 for several teams (BatchGet), in the order asked. */
export const getTeams = (accountId: number, teamIds: number[]) => getMany<TeamRecord>(teamIds.map((id) => keys.team(accountId, id)));

/** AP31: the teams of an account, by id. */
export async function listTeams(accountId: number): Promise<TeamRecord[]> {
  const p = keys.teamsOf(accountId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<TeamRecord>(i)!);
}

/** AP32: user ids of the members of a team. */
export async function listTeamMemberIds(accountId: number, teamId: number): Promise<number[]> {
  const p = keys.teamMembersOf(accountId, teamId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => keys.lastIdOf(String(i.sk)));
}

/** AP33: ids of the teams a user is a member of (gsi1). */
export async function listUserTeamIds(accountId: number, userId: number): Promise<number[]> {
  const p = keys.userTeamsOf(accountId, userId);
  return (await queryPrefix({ gsi1pk: p.gsi1pk }, p.skPrefix)).map((i) => keys.lastIdOf(String(i.gsi1sk)));
}

const teamItem = (t: TeamRecord) => ({ ...keys.team(t.account_id, t.id), type: 'team', ...t });

const nameSentinel = (t: TeamRecord): TxItem => ({
  item: put({ ...keys.teamNameUnique(t.account_id, t.name), type: 'unique', owner_id: t.id }, { ifNew: true }),
  onConflict: () => taken('name'),
});

/** Writes a team (new when `before` is undefined), moving its name's uniqueness sentinel. */
export async function saveTeam(before: TeamRecord | undefined, after: TeamRecord): Promise<void> {
  const items: TxItem[] = [versionedPut(teamItem(after), before?.version)];
  if (before?.name !== after.name) {
    if (before) items.push({ item: del(keys.teamNameUnique(before.account_id, before.name)) });
    items.push(nameSentinel(after));
  }
  await transact(items);
}

/**
 * AP30 write without a read: fields other than the (unique) name replaced on the stored item, its
 * version moved on; undefined when the team is gone.
 */
export const changeTeamAttributes = (accountId: number, teamId: number, changes: AttributeChanges) =>
  applyChanges<TeamRecord>(keys.team(accountId, teamId), changes);

const memberItem = (m: TeamMemberRecord) => ({
  ...keys.teamMember(m.account_id, m.team_id, m.user_id),
  ...keys.teamMemberIndex(m.account_id, m.team_id, m.user_id),
  type: 'team_member',
  ...m,
});

const MAX_TX = 100;

/** Adds and removes memberships; the first transaction checks that the team still exists. */
export async function changeTeamMembers(team: TeamRecord, add: TeamMemberRecord[], remove: number[]): Promise<void> {
  const writes: TxItem[] = [
    ...add.map((m) => ({ item: put(memberItem(m)) })),
    ...remove.map((u) => ({ item: del(keys.teamMember(team.account_id, team.id, u)) })),
  ];
  const guard: TxItem = {
    item: check(keys.team(team.account_id, team.id), { expression: 'attribute_exists(pk)' }),
    onConflict: () => notFound('Team'),
  };
  for (let i = 0; i === 0 || i < writes.length; i += MAX_TX - 1) {
    await transact(i === 0 ? [guard, ...writes.slice(0, MAX_TX - 1)] : writes.slice(i, i + MAX_TX - 1));
  }
}

/** Removes a team, its name sentinel and its memberships (the team and first members in one transaction). */
export async function deleteTeam(team: TeamRecord): Promise<void> {
  const members = await listTeamMemberIds(team.account_id, team.id);
  const first: TxItem[] = [
    versionedDel(keys.team(team.account_id, team.id), team.version),
    { item: del(keys.teamNameUnique(team.account_id, team.name)) },
  ];
  const rest = members.map((u) => ({ item: del(keys.teamMember(team.account_id, team.id, u)) }));
  const room = MAX_TX - first.length;
  await transact([...first, ...rest.slice(0, room)]);
  for (let i = room; i < rest.length; i += MAX_TX) await transact(rest.slice(i, i + MAX_TX));
}
