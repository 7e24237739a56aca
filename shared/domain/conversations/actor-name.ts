import { getContact } from '#shared/db/repositories/contacts.ts';
import type { ConversationActor } from '#shared/model/conversations.ts';

/**
 * The name an activity message gives who made a change, as Chatwoot's activity messages name them: the user or bot,
 * "Automation System" for a rule, the contact (capitalized), nobody for the channel itself.
 */
export const actorName = async (accountId: number, actor: ConversationActor | null): Promise<string | undefined> => {
  if (!actor) return undefined;
  if (actor.type === 'user') return actor.user.name;
  if (actor.type === 'agent_bot') return actor.bot.name;
  if (actor.type === 'automation_rule') return 'Automation System';
  if (actor.type === 'campaign') return 'Campaign';
  if (actor.type === 'channel') return undefined;
  const name = (await getContact(accountId, actor.contactId))?.name ?? '';
  return name.charAt(0).toUpperCase() + name.slice(1);
};
