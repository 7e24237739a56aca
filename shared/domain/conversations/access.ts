import type { Actor } from '#shared/model/actor.ts';
import { notFound } from '#shared/errors.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { listAgentInboxIds } from '#shared/db/repositories/inboxes.ts';
import { listUserTeamIds } from '#shared/db/repositories/teams.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';

// Who sees which conversation (docs/chatwoot.md#roles): administrators and agent bots every conversation of
// the account; agents those of inboxes they are members of, and (show and sub-resources) those of their
// teams. Anything else answers 404, like an absent conversation.

export const isAgent = (actor: Actor) => actor.type === 'user' && actor.role !== 'administrator';

type Visible = Pick<ConversationRecord, 'inbox_id' | 'team_id'>;

/** A test for "may the actor open this conversation", for checking many at once. */
export async function accessTest(accountId: number, actor: Actor, withTeams = true): Promise<(c: Visible) => boolean> {
  if (actor.type !== 'user' || !isAgent(actor)) return () => true;
  const [inboxes, teams] = await Promise.all([
    listAgentInboxIds(accountId, actor.user.id),
    withTeams ? listUserTeamIds(accountId, actor.user.id) : Promise.resolve([] as number[]),
  ]);
  return (c) => inboxes.includes(c.inbox_id) || (c.team_id !== null && teams.includes(c.team_id));
}

export const mayAccess = async (accountId: number, actor: Actor, c: ConversationRecord) =>
  (await accessTest(accountId, actor, c.team_id !== null))(c);

export async function visibleConversation(accountId: number, actor: Actor, displayId: number, consistent = false) {
  const c = await getConversation(accountId, displayId, consistent);
  if (!c || !(await mayAccess(accountId, actor, c))) throw notFound('Conversation');
  return c;
}
