import type { InboxRecord } from '#shared/model/inboxes.ts';
import { roomFor } from './rooms.ts';

// A channel inbox meeting its provider (docs/channels.md#whatsapp): the room's check when the inbox is created,
// and its template sync. Inboxes of channels without a room (web widget, API, email) pass untouched.

export async function connectChannel(inbox: InboxRecord): Promise<Partial<InboxRecord>> {
  return (await roomFor(inbox)?.connect?.(inbox)) ?? {};
}

/** The provider's templates now; undefined when the inbox's channel has none to sync. */
export async function syncChannelTemplates(inbox: InboxRecord): Promise<Partial<InboxRecord> | undefined> {
  return roomFor(inbox)?.syncTemplates?.(inbox);
}
