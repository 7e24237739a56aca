import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { ChannelRoom } from './channel.ts';
import { bandwidthRoom } from './bandwidth/room.ts';
import { twilioRoom } from './twilio/room.ts';
import { emailRoom } from './email/room.ts';
import { facebookRoom } from './facebook/room.ts';
import { instagramRoom } from './instagram/room.ts';
import { lineRoom } from './line/room.ts';
import { telegramRoom } from './telegram/room.ts';
import { whatsappRoom } from './whatsapp/room.ts';

// The registry of channel rooms (docs/channels.md#add-a-channel): one entry per room, by its kind and by the inbox
// channel types whose messages it sends.

export const ROOMS: ChannelRoom[] = [
  whatsappRoom,
  twilioRoom,
  bandwidthRoom,
  emailRoom,
  telegramRoom,
  lineRoom,
  facebookRoom,
  instagramRoom,
];

export function roomByKind(kind: string): ChannelRoom {
  const room = ROOMS.find((r) => r.kind === kind);
  if (!room) throw new Error(`no channel room ${kind}`);
  return room;
}

/** The room that sends an inbox's messages, if its channel has one. */
export const roomFor = (inbox: Pick<InboxRecord, 'channel_type'>): ChannelRoom | undefined =>
  ROOMS.find((r) => r.channelTypes.includes(inbox.channel_type));
