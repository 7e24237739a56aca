import type { InboxRecord } from '#shared/model/inboxes.ts';
import { roomFor } from './rooms.ts';

// The provider's side of creating or changing a channel inbox (docs/channels.md#the-interface): the room of the
// inbox's channel, when it has anything to do there (Telegram: the bot's name, the webhook), else the inbox as is.
// The inbox functions hand it to the domain's createInbox / updateInbox.

export const setUpChannelInbox = (inbox: InboxRecord, before?: InboxRecord): Promise<InboxRecord> =>
  roomFor(inbox)?.setup?.(inbox, before) ?? Promise.resolve(inbox);

/** The provider's templates now (`POST /inboxes/{id}/sync_templates`); undefined when the inbox's channel has none to sync. */
export async function syncChannelTemplates(inbox: InboxRecord): Promise<Partial<InboxRecord> | undefined> {
  return roomFor(inbox)?.syncTemplates?.(inbox);
}
