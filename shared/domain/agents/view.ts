import { getMany } from '#shared/db/repositories/common.ts';
import { getUsers, listAccountUsers } from '#shared/db/repositories/identity.ts';
import * as keys from '#shared/db/keys.ts';
import type { AccountUserRecord } from '#shared/model/identity.ts';
import { agentJson } from '../conversations/view.ts';

// Agents (agent JSON, docs/chatwoot.md#inbox-members-and-agent-json): the account's users, for the agents list, inbox
// and team members.

/** Agent JSON of these users of the account, by id; users no longer in the account are left out. */
export async function agentsJson(accountId: number, userIds: number[]) {
  const ids = [...new Set(userIds)].sort((a, b) => a - b);
  if (!ids.length) return [];
  const [users, memberships] = await Promise.all([
    getUsers(ids),
    getMany<AccountUserRecord>(ids.map((id) => keys.accountUser(accountId, id))),
  ]);
  return ids.flatMap((_, i) => {
    const user = users[i];
    const membership = memberships[i];
    return user && membership ? [agentJson({ user, membership }, accountId)] : [];
  });
}

/** `GET /agents`: every user of the account. */
export async function listAgents(accountId: number) {
  return agentsJson(
    accountId,
    (await listAccountUsers(accountId)).map((m) => m.user_id),
  );
}
