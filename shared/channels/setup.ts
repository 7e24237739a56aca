import type { InboxRecord } from '#shared/model/inboxes.ts';
import { hasRoom } from './room-types.ts';

// The provider's side of creating or changing a channel inbox (docs/channels.md#the-interface): the room of the
// inbox's channel, when it has anything to do there (Telegram: the bot's name, the webhook), else the inbox as is.
// The inbox functions hand it to the domain's createInbox / updateInbox. The rooms registry loads on first use (a
// dynamic import): an API or web widget inbox never needs it, and the registry carries every room's code.

export async function setUpChannelInbox(inbox: InboxRecord, before?: InboxRecord): Promise<InboxRecord> {
  if (!hasRoom(inbox)) return inbox;
  const { roomFor } = await import('./rooms.ts');
  return roomFor(inbox)?.setup?.(inbox, before) ?? inbox;
}

/** The provider's templates now (`POST /inboxes/{id}/sync_templates`); undefined when the inbox's channel has none to sync. */
export async function syncChannelTemplates(inbox: InboxRecord): Promise<Partial<InboxRecord> | undefined> {
  if (!hasRoom(inbox)) return undefined;
  const { roomFor } = await import('./rooms.ts');
  return roomFor(inbox)?.syncTemplates?.(inbox);
}
