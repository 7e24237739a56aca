import { getMany } from '#shared/db/repositories/common.ts';
import * as keys from '#shared/db/keys.ts';
import * as repo from '#shared/db/repositories/participants.ts';
import type { Actor } from '#shared/model/actor.ts';
import { unprocessable } from '#shared/errors.ts';
import { agentsJson } from '../agents/view.ts';
import { visibleConversation } from '../conversations/access.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { AccountRecord, AccountUserRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';

// Conversation participants (Chatwoot's conversation_participants): agents who follow a conversation.
// A participant must be able to reach the conversation: an administrator or a member of its inbox.

async function requireParticipants(accountId: number, c: ConversationRecord, userIds: number[]): Promise<void> {
  const ids = [...new Set(userIds)];
  const [memberships, inboxMembers] = await Promise.all([
    getMany<AccountUserRecord>(ids.map((id) => keys.accountUser(accountId, id))),
    getMany(ids.map((id) => keys.inboxMember(accountId, c.inbox_id, id))),
  ]);
  const refused = ids.filter((_, i) => !memberships[i] || (memberships[i]!.role !== 'administrator' && !inboxMembers[i]));
  if (refused.length) {
    throw unprocessable([
      { field: 'user_ids', message: `have no access to this conversation's inbox: ${refused.join(', ')}`, code: 'invalid' },
    ]);
  }
}

const payload = (accountId: number, ids: number[]) => agentsJson(accountId, ids);

/** `GET /conversations/{id}/participants`: agent JSON of every participant. */
export async function listParticipants(account: AccountRecord, actor: Actor, displayId: number) {
  const c = await visibleConversation(account.id, actor, displayId);
  return payload(account.id, await repo.listParticipantIds(account.id, c.id));
}

async function change(account: AccountRecord, actor: Actor, displayId: number, userIds: number[], replace: boolean) {
  const c = await visibleConversation(account.id, actor, displayId, true);
  const current = await repo.listParticipantIds(account.id, c.id);
  const add = [...new Set(userIds)].filter((u) => !current.includes(u));
  const remove = replace ? current.filter((u) => !userIds.includes(u)) : [];
  await requireParticipants(account.id, c, add);
  const at = now();
  if (add.length || remove.length) {
    await repo.changeParticipants(
      account.id,
      c.id,
      add.map((user_id) => ({ account_id: account.id, conversation_id: c.id, user_id, created_at: at })),
      remove,
    );
  }
  return { added: add, after: [...current.filter((u) => !remove.includes(u)), ...add] };
}

/** `POST`: adds these users; answers the ones it added, as Chatwoot's create does. */
export async function addParticipants(account: AccountRecord, actor: Actor, displayId: number, userIds: number[]) {
  return payload(account.id, (await change(account, actor, displayId, userIds, false)).added);
}

/** `PATCH`: the participants become exactly these users; answers the new list. */
export async function replaceParticipants(account: AccountRecord, actor: Actor, displayId: number, userIds: number[]) {
  return payload(account.id, (await change(account, actor, displayId, userIds, true)).after);
}

/** `DELETE`: removes these users (ids that are no participants are ignored). */
export async function removeParticipants(account: AccountRecord, actor: Actor, displayId: number, userIds: number[]): Promise<void> {
  const c = await visibleConversation(account.id, actor, displayId, true);
  const current = await repo.listParticipantIds(account.id, c.id);
  const remove = [...new Set(userIds)].filter((u) => current.includes(u));
  if (remove.length) await repo.changeParticipants(account.id, c.id, [], remove);
}
