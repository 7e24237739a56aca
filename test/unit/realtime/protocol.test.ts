import { describe, expect, it } from 'vitest';
import { hears, needsInboxMembers } from '#shared/realtime/audience.ts';
import type { CableSubscription } from '#shared/model/cable.ts';
import { frames, MAX_FRAME_BYTES, parseCommand, pickSubprotocol } from '#shared/realtime/protocol.ts';

describe('ActionCable frames', () => {
  it('parses the three commands; message data as a JSON string (ActionCable) or an object (Flutter SDK)', () => {
    const identifier = JSON.stringify({ channel: 'RoomChannel', pubsub_token: 't' });
    expect(parseCommand(JSON.stringify({ command: 'subscribe', identifier }))).toEqual({
      command: 'subscribe',
      identifier,
      params: { channel: 'RoomChannel', pubsub_token: 't' },
    });
    expect(parseCommand(JSON.stringify({ command: 'unsubscribe', identifier }))).toMatchObject({ command: 'unsubscribe', identifier });
    const asString = parseCommand(JSON.stringify({ command: 'message', identifier, data: JSON.stringify({ action: 'update_presence' }) }));
    const asObject = parseCommand(JSON.stringify({ command: 'message', identifier, data: { action: 'update_presence' } }));
    expect(asString).toMatchObject({ command: 'message', data: { action: 'update_presence' } });
    expect(asObject).toEqual(asString);
  });

  it('names what is wrong with bad frames', () => {
    const id = JSON.stringify({ channel: 'RoomChannel' });
    expect(parseCommand('nope')).toEqual({ error: 'not_json' });
    expect(parseCommand('[1]')).toEqual({ error: 'not_json' });
    expect(parseCommand('{}')).toEqual({ error: 'not_a_command' });
    expect(parseCommand(JSON.stringify({ command: 'dance', identifier: id }))).toEqual({ error: 'unknown_command' });
    expect(parseCommand(JSON.stringify({ command: 'subscribe', identifier: 'x' }))).toEqual({ error: 'bad_identifier' });
    expect(parseCommand(JSON.stringify({ command: 'subscribe', identifier: { channel: 'RoomChannel' } }))).toEqual({
      error: 'bad_identifier',
    });
    expect(parseCommand(JSON.stringify({ command: 'message', identifier: id, data: '[]' }))).toEqual({ error: 'bad_data' });
    expect(parseCommand('x'.repeat(MAX_FRAME_BYTES + 1))).toEqual({ error: 'too_large' });
  });

  it('speaks Rails’ server frames and picks the sub-protocol only when offered', () => {
    expect(frames.welcome()).toEqual({ type: 'welcome' });
    expect(frames.ping(1_700_000_000_999)).toEqual({ type: 'ping', message: 1_700_000_000 });
    expect(frames.confirm('i')).toEqual({ identifier: 'i', type: 'confirm_subscription' });
    expect(frames.reject('i')).toEqual({ identifier: 'i', type: 'reject_subscription' });
    expect(pickSubprotocol('actioncable-v1-json, actioncable-unsupported')).toBe('actioncable-v1-json');
    expect(pickSubprotocol(['actioncable-unsupported'])).toBeUndefined();
    expect(pickSubprotocol(undefined)).toBeUndefined();
  });
});

describe('who hears what', () => {
  const sub = (over: Partial<CableSubscription>): CableSubscription => ({
    connection_id: 'c',
    identifier: 'i',
    identifier_hash: 'h',
    account_id: 1,
    kind: 'user',
    user_id: 1,
    role: 'agent',
    contact_id: null,
    pubsub_token: null,
    hmac_verified: false,
    created_at: 0,
    ...over,
  });
  const admin = sub({ user_id: 1, role: 'administrator' });
  const member = sub({ user_id: 2 });
  const outsider = sub({ user_id: 3 });
  const contact = sub({ kind: 'contact', user_id: null, role: null, contact_id: 9, pubsub_token: 'tok' });
  const otherContact = sub({ kind: 'contact', user_id: null, role: null, contact_id: 8, pubsub_token: 'other' });
  const members = new Set([2]);

  it('conversation events: administrators, inbox members, the conversation’s contact', () => {
    const a = { inboxId: 5, contactTokens: ['tok'] };
    expect([admin, member, outsider, contact, otherContact].map((s) => hears(s, a, members))).toEqual([true, true, false, true, false]);
    expect(needsInboxMembers([admin], a)).toBe(false);
    expect(needsInboxMembers([admin, member], a)).toBe(true);
  });

  it('private notes and activity (no contact tokens) stay with the agents; typists do not hear themselves', () => {
    expect(hears(contact, { inboxId: 5 }, members)).toBe(false);
    expect(hears(admin, { inboxId: 5, exceptUserId: 1 }, members)).toBe(false);
    expect(hears(contact, { inboxId: 5, contactTokens: ['tok'], exceptContactId: 9 }, members)).toBe(false);
  });

  it('contact events reach every user and no contact; verified identities span inboxes', () => {
    expect([admin, member, outsider, contact].map((s) => hears(s, { allUsers: true }))).toEqual([true, true, true, false]);
    const verified = { ...contact, pubsub_token: 'another-inbox', hmac_verified: true };
    expect(hears(verified, { inboxId: 5, contactTokens: ['tok'], verifiedContactId: 9 })).toBe(true);
    expect(hears({ ...verified, hmac_verified: false }, { inboxId: 5, contactTokens: ['tok'], verifiedContactId: 9 })).toBe(false);
  });
});
