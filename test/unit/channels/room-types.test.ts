import { describe, expect, it } from 'vitest';
import { ROOM_CHANNEL_TYPES } from '#shared/channels/room-types.ts';
import { ROOMS } from '#shared/channels/rooms.ts';

describe('the channel types with a room', () => {
  it('are exactly the channel types the rooms registry sends for', () => {
    expect([...ROOM_CHANNEL_TYPES].sort()).toEqual(ROOMS.flatMap((r) => r.channelTypes).sort());
  });
});
