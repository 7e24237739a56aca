import { getInbox, isInboxMember, listAgentInboxIds } from '../../db/repositories/inboxes.ts';
import type { Actor } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import type { InboxRecord } from './model.ts';

// Who sees which inbox (reference §1.2): administrators and agent bots the whole account, agents the
// inboxes they are members of. An inbox one may not see answers 404, like an absent one.

const seesAll = (actor: Actor) => actor.type === 'agent_bot' || actor.role === 'administrator';

export async function inboxScope(accountId: number, actor: Actor): Promise<'all' | Set<number>> {
  if (seesAll(actor) || actor.type !== 'user') return 'all';
  return new Set(await listAgentInboxIds(accountId, actor.user.id));
}

export async function visibleInbox(accountId: number, actor: Actor, inboxId: number): Promise<InboxRecord> {
  const [inbox, member] = await Promise.all([
    getInbox(accountId, inboxId),
    seesAll(actor) || actor.type !== 'user' ? true : isInboxMember(accountId, inboxId, actor.user.id),
  ]);
  if (!inbox || !member) throw notFound('Inbox');
  return inbox;
}
