import type { InboxRecord } from '#shared/model/inboxes.ts';

// The inbox channel types a channel room sends for (the rooms' `channelTypes` in ./rooms.ts), without the rooms:
// the dispatcher asks only whether an inbox's messages go to a room, and importing the registry would load every
// room's code into it. test/unit/channels/room-types.test.ts keeps this list equal to the registry's.

export const ROOM_CHANNEL_TYPES: ReadonlySet<InboxRecord['channel_type']> = new Set<InboxRecord['channel_type']>([
  'Channel::Whatsapp',
  'Channel::TwilioSms',
  'Channel::Sms',
  'Channel::Email',
  'Channel::Telegram',
  'Channel::Line',
  'Channel::FacebookPage',
  'Channel::Instagram',
]);

/** Whether a room sends this inbox's messages (what `roomFor(inbox)` would find). */
export const hasRoom = (inbox: Pick<InboxRecord, 'channel_type'>): boolean => ROOM_CHANNEL_TYPES.has(inbox.channel_type);
