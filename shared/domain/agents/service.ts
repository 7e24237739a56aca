import { hashToken, ownerToken, randomId, seal } from '#shared/crypto/tokens.ts';
import { nextId } from '#shared/db/ids.ts';
import * as repo from '#shared/db/repositories/agents.ts';
import {
  changeUser,
  getAccountUser,
  getUser,
  getUserIdByEmail,
  listAccountUsers,
  listUserAccounts,
} from '#shared/db/repositories/identity.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import { getInboxes, listAgentInboxIds, listInboxMemberIds } from '#shared/db/repositories/inboxes.ts';
import { listUserTeamIds } from '#shared/db/repositories/teams.ts';
import type { Actor } from '#shared/model/actor.ts';
import { notFound } from '#shared/errors.ts';
import { agentJson } from '../conversations/view.ts';
import { unassignUserConversations } from '../conversations/service.ts';
import { inboxScope } from '../inboxes/access.ts';
import type { AccountRecord, AccountUserRecord, UserRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import type { AgentUpdate, NewAgent } from './schemas.ts';
import { agentsJson } from './view.ts';

// Agents of an account (Chatwoot's agents controller and AgentBuilder): add a person by email, change
// their role and availability, remove them.

async function requireAgent(accountId: number, userId: number) {
  const [user, membership] = await Promise.all([getUser(userId), getAccountUser(accountId, userId)]);
  if (!user || !membership) throw notFound('Agent');
  return { user, membership };
}

/**
 * `POST /agents`: the person with this email joins the account (a new user when nobody has the email;
 * Chatwoot would mail them an invitation). Role `agent`, availability `offline` and auto-offline unless given.
 */
export async function createAgent(account: AccountRecord, actor: Actor, input: NewAgent) {
  const t = now();
  const membership = (userId: number): AccountUserRecord => ({
    id: 0,
    account_id: account.id,
    user_id: userId,
    role: input.role ?? 'agent',
    inviter_id: actor.type === 'user' ? actor.user.id : null,
    created_at: t,
    updated_at: t,
    active_at: null,
    availability: input.availability ?? input.availability_status ?? 'offline',
    auto_offline: input.auto_offline ?? true,
    custom_role_id: null,
    agent_capacity_policy_id: null,
  });
  const existingId = await getUserIdByEmail(input.email);
  const existing = existingId !== undefined ? await getUser(existingId) : undefined;
  if (existing) {
    const m = { ...membership(existing.id), id: await nextId('account_user') };
    await repo.addMembership(m);
    return agentJson({ user: existing, membership: m }, account.id);
  }
  const id = await nextId('user');
  const token = ownerToken('user', id);
  const user: UserRecord = {
    id,
    name: input.name,
    display_name: null,
    email: input.email,
    password_hash: null,
    custom_attributes: {},
    ui_settings: {},
    message_signature: null,
    pubsub_token: randomId(),
    avatar_url: '',
    sealed_token: await seal(token),
    token_hash: hashToken(token),
    created_by_app: null,
    created_at: t,
    updated_at: t,
  };
  const m = { ...membership(user.id), id: await nextId('account_user') };
  await repo.createUserWithMembership(user, m);
  return agentJson({ user, membership: m }, account.id);
}

/** `PATCH /agents/{id}`: the name on the user; role, availability and auto-offline on the membership. */
export async function updateAgent(account: AccountRecord, userId: number, input: AgentUpdate) {
  const membership = await retryStale(async (consistent) => {
    const before = consistent ? await repo.getMembershipFresh(account.id, userId) : (await requireAgent(account.id, userId)).membership;
    if (!before) throw notFound('Agent');
    const after: AccountUserRecord = {
      ...before,
      role: input.role ?? before.role,
      availability: input.availability ?? input.availability_status ?? before.availability,
      auto_offline: input.auto_offline ?? before.auto_offline,
      updated_at: Math.max(now(), before.updated_at + 1),
    };
    await repo.saveMembership(before, after);
    return after;
  });
  // The name is the user's own, changed on its attributes like every other user change.
  const user =
    input.name !== undefined ? await changeUser(userId, { set: { name: input.name, updated_at: now() } }) : await getUser(userId);
  if (!user) throw notFound('Agent');
  return agentJson({ user, membership }, account.id);
}

/**
 * `DELETE /agents/{id}`: the person leaves the account with their inbox and team memberships, and
 * their conversations become unassigned. A user this created and who now belongs nowhere is deleted,
 * as Chatwoot deletes a user without accounts; users a platform app made stay that app's.
 */
export async function deleteAgent(account: AccountRecord, userId: number): Promise<void> {
  const { user } = await requireAgent(account.id, userId);
  const [inboxIds, teamIds] = await Promise.all([listAgentInboxIds(account.id, userId), listUserTeamIds(account.id, userId)]);
  await repo.removeMembership(account.id, userId, inboxIds, teamIds);
  await unassignUserConversations(account.id, userId);
  if (user.created_by_app === null && (await listUserAccounts(userId)).length === 0) await repo.deleteLoneUser(user);
}

/**
 * `GET /assignable_agents?inbox_ids[]=`: the agents who are members of every one of these inboxes,
 * and every administrator of the account. The inboxes must be ones the caller may see.
 */
export async function assignableAgents(account: AccountRecord, actor: Actor, inboxIds: number[]) {
  const ids = [...new Set(inboxIds)];
  const [inboxes, scope] = await Promise.all([getInboxes(account.id, ids), inboxScope(account.id, actor)]);
  if (inboxes.some((i) => !i) || ids.some((id) => scope !== 'all' && !scope.has(id))) throw notFound('Inbox');
  const [memberLists, memberships] = await Promise.all([
    Promise.all(ids.map((id) => listInboxMemberIds(account.id, id))),
    listAccountUsers(account.id),
  ]);
  const common = memberLists.length ? memberLists.reduce((acc, list) => acc.filter((u) => list.includes(u))) : [];
  const admins = memberships.filter((m) => m.role === 'administrator').map((m) => m.user_id);
  return { payload: await agentsJson(account.id, [...common, ...admins]) };
}
