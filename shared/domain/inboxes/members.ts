import { getMany } from '#shared/db/repositories/common.ts';
import * as keys from '#shared/db/keys.ts';
import * as repo from '#shared/db/repositories/inboxes.ts';
import type { Actor } from '#shared/model/actor.ts';
import { notFound, unprocessable } from '#shared/errors.ts';
import { agentsJson } from '../agents/view.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import { visibleInbox } from './access.ts';

// Inbox members (docs/chatwoot.md#inbox-members-and-agent-json): add, replace, remove and list the agents of an
// inbox.

/** Every id must be a user of the account (422 on `user_ids` otherwise). */
export async function requireAccountUsers(accountId: number, userIds: number[]): Promise<number[]> {
  const ids = [...new Set(userIds)];
  const found = await getMany(ids.map((id) => keys.accountUser(accountId, id)));
  const strangers = ids.filter((_, i) => !found[i]);
  if (strangers.length) {
    throw unprocessable([{ field: 'user_ids', message: `are not users of this account: ${strangers.join(', ')}`, code: 'invalid' }]);
  }
  return ids;
}

async function inboxOf(accountId: number, inboxId: number) {
  const inbox = await repo.getInbox(accountId, inboxId);
  if (!inbox) throw notFound('Inbox');
  return inbox;
}

type Change = (current: number[], wanted: number[]) => { add: number[]; remove: number[] };

async function changeMembers(account: AccountRecord, input: { inbox_id: number; user_ids: number[] }, change: Change) {
  const inbox = await inboxOf(account.id, input.inbox_id);
  const wanted = await requireAccountUsers(account.id, input.user_ids);
  const current = await repo.listInboxMemberIds(account.id, inbox.id);
  const { add, remove } = change(current, wanted);
  const at = now();
  await repo.changeInboxMembers(
    inbox,
    add.map((user_id) => ({ account_id: account.id, inbox_id: inbox.id, user_id, created_at: at })),
    remove,
  );
  const removed = new Set(remove);
  return [...current.filter((u) => !removed.has(u)), ...add];
}

const adding: Change = (current, wanted) => ({ add: wanted.filter((u) => !current.includes(u)), remove: [] });
const replacing: Change = (current, wanted) => ({
  add: wanted.filter((u) => !current.includes(u)),
  remove: current.filter((u) => !wanted.includes(u)),
});
const removing: Change = (current, wanted) => ({ add: [], remove: wanted.filter((u) => current.includes(u)) });

export async function addInboxMembers(account: AccountRecord, input: { inbox_id: number; user_ids: number[] }) {
  return { payload: await agentsJson(account.id, await changeMembers(account, input, adding)) };
}

export async function replaceInboxMembers(account: AccountRecord, input: { inbox_id: number; user_ids: number[] }) {
  return { payload: await agentsJson(account.id, await changeMembers(account, input, replacing)) };
}

export async function removeInboxMembers(account: AccountRecord, input: { inbox_id: number; user_ids: number[] }) {
  await changeMembers(account, input, removing);
}

/** Administrators, or agents who are members of the inbox (others get 404). */
export async function listInboxMembers(account: AccountRecord, actor: Actor, inboxId: number) {
  const inbox = await visibleInbox(account.id, actor, inboxId);
  return { payload: await agentsJson(account.id, await repo.listInboxMemberIds(account.id, inbox.id)) };
}
