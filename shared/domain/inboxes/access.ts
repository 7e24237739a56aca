import { getInbox, isInboxMember, listAgentInboxIds } from '#shared/db/repositories/inboxes.ts';
import type { Actor } from '#shared/model/actor.ts';
import { notFound } from '#shared/errors.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';

// Who sees which inbox (docs/chatwoot.md#roles): administrators and agent bots the whole account, agents the
// inboxes they are members of. An inbox one may not see answers 404, like an absent one.

/** The user id whose inbox memberships limit what the actor sees; undefined when it sees everything. */
const limitedAgent = (actor: Actor) => (actor.type === 'user' && actor.role !== 'administrator' ? actor.user.id : undefined);

export async function inboxScope(accountId: number, actor: Actor): Promise<'all' | Set<number>> {
  const agent = limitedAgent(actor);
  return agent === undefined ? 'all' : new Set(await listAgentInboxIds(accountId, agent));
}

export async function visibleInbox(accountId: number, actor: Actor, inboxId: number): Promise<InboxRecord> {
  const agent = limitedAgent(actor);
  const [inbox, member] = await Promise.all([
    getInbox(accountId, inboxId),
    agent === undefined ? true : isInboxMember(accountId, inboxId, agent),
  ]);
  if (!inbox || !member) throw notFound('Inbox');
  return inbox;
}
