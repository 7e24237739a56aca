import { describe, expect, it } from 'vitest';
import { framesFor, hears, needsInboxMembers, type CableEvent } from '#shared/realtime/audience.ts';
import { contactSub, userSub } from '../support/records.ts';

// Who hears a socket event (shared/realtime/audience.ts) beyond the basics in protocol.test.ts: a user's own
// notifications, subscriptions that name nobody, verified identities, when inbox members are worth
// reading, and the frames each hearer gets.

const admin = userSub(1, 'administrator');
const member = userSub(2, 'agent');
const outsider = userSub(3, 'agent');
const ana = contactSub(40, 'pubsub-ana');
const members = new Set([2]);

describe('hears', () => {
  it('a user-addressed event (a notification) reaches that user only, not the administrators', () => {
    const audience = { userIds: [3] };
    expect([admin, member, outsider, ana].map((s) => hears(s, audience, members))).toEqual([false, false, true, false]);
  });

  it('a subscription without its user or contact hears nothing', () => {
    expect(hears(userSub(1, 'administrator', { user_id: null }), { allUsers: true })).toBe(false);
    expect(hears(contactSub(40, 'pubsub-ana', { contact_id: null }), { contactTokens: ['pubsub-ana'] })).toBe(false);
  });

  it('the typist is left out even of an event for every user', () => {
    expect(hears(admin, { allUsers: true, exceptUserId: 1 })).toBe(false);
    expect(hears(member, { allUsers: true, exceptUserId: 1 })).toBe(true);
  });

  it('an inbox event reaches no user without one, and no contact whose token it does not name', () => {
    expect(hears(admin, {})).toBe(false);
    expect(hears(ana, { inboxId: 2, contactTokens: ['pubsub-other'] })).toBe(false);
    expect(hears(contactSub(40, 'pubsub-ana', { pubsub_token: null }), { inboxId: 2, contactTokens: ['pubsub-ana'] })).toBe(false);
  });

  it('a verified identity hears through its other verified contact inboxes, never another contact’s', () => {
    const audience = { inboxId: 2, contactTokens: ['pubsub-ana'], verifiedContactId: 40 };
    expect(hears(contactSub(40, 'pubsub-ana-mobile', { hmac_verified: true }), audience)).toBe(true);
    expect(hears(contactSub(41, 'pubsub-bob', { hmac_verified: true }), audience)).toBe(false);
    // A verified identity without a verified audience: its own token only.
    expect(hears(contactSub(40, 'pubsub-ana-mobile', { hmac_verified: true }), { inboxId: 2, contactTokens: ['pubsub-ana'] })).toBe(false);
  });
});

describe('needsInboxMembers', () => {
  it('only an inbox event that some agent (not administrator) might hear needs the inbox’s members', () => {
    expect(needsInboxMembers([admin, member], { inboxId: 2 })).toBe(true);
    expect(needsInboxMembers([admin, ana], { inboxId: 2 })).toBe(false);
    expect(needsInboxMembers([member], { allUsers: true, inboxId: 2 })).toBe(false);
    expect(needsInboxMembers([member], { userIds: [2] })).toBe(false);
    expect(needsInboxMembers([], { inboxId: 2 })).toBe(false);
  });
});

describe('framesFor', () => {
  const created: CableEvent = { name: 'message.created', data: { id: 900 }, audience: { inboxId: 2, contactTokens: ['pubsub-ana'] } };
  const note: CableEvent = { name: 'message.created', data: { id: 901, private: true }, audience: { inboxId: 2 } };
  const contactUpdated: CableEvent = { name: 'contact.updated', data: { id: 40 }, audience: { allUsers: true } };

  it('one frame per hearer, events in order, each echoing its subscription’s identifier', () => {
    const out = framesFor([created, note, contactUpdated], [admin, member, outsider, ana], members);
    const summary = ({ sub, frame }: (typeof out)[number]) => {
      const m = frame.message as { event: string; data: { id: number } };
      return [m.event, m.data.id, sub.user_id ?? `contact ${sub.contact_id}`];
    };
    expect(out.map(summary)).toEqual([
      ['message.created', 900, 1],
      ['message.created', 900, 2],
      ['message.created', 900, 'contact 40'],
      ['message.created', 901, 1],
      ['message.created', 901, 2],
      ['contact.updated', 40, 1],
      ['contact.updated', 40, 2],
      ['contact.updated', 40, 3],
    ]);
    expect(out[2]).toEqual({ sub: ana, frame: { identifier: ana.identifier, message: { event: 'message.created', data: { id: 900 } } } });
  });

  it('nothing for nobody', () => {
    expect(framesFor([note], [outsider, ana], members)).toEqual([]);
    expect(framesFor([], [admin], members)).toEqual([]);
  });
});
