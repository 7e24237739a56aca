import { describe, expect, it } from 'vitest';
import type { Change } from '#shared/model/change.ts';
import { eventsOf, REALTIME_ONLY } from '#shared/domain/events/domain-events.ts';
import { cableEventsOf } from '#shared/realtime/cable-events.ts';

// Changes that only sockets hear (Chatwoot's ActionCableListener): which changes raise them, that they
// stay off webhooks, and who hears them.

const conversation = (over: Record<string, unknown> = {}) => ({
  type: 'conversation',
  account_id: 7,
  id: 3,
  inbox_id: 2,
  contact_id: 40,
  status: 'open',
  labels: [],
  custom_attributes: {},
  additional_attributes: {},
  contact_last_seen_at: null,
  agent_last_seen_at: null,
  updated_by: { type: 'user', id: 5 },
  ...over,
});
const change = (
  action: Change['action'],
  type: string,
  oldImage?: Record<string, unknown>,
  newImage?: Record<string, unknown>,
): Change => ({
  id: 'rec-1',
  action,
  type,
  pk: 'CONV#7#3',
  sk: 'CONV',
  at: 1_700_000_000,
  oldImage,
  newImage,
});

describe('realtime-only domain events', () => {
  it('a contact reading its conversation raises conversation_read and nothing else', () => {
    const events = eventsOf(change('MODIFY', 'conversation', conversation(), conversation({ contact_last_seen_at: 1_700_000_100 })));
    expect(events.map((e) => e.name)).toEqual(['conversation_read']);
    expect(events[0].conversation?.id).toBe(3);
    expect(REALTIME_ONLY.has('conversation_read')).toBe(true);
  });

  it('an agent reading raises nothing (Chatwoot announces only the contact’s reading)', () => {
    expect(eventsOf(change('MODIFY', 'conversation', conversation(), conversation({ agent_last_seen_at: 1_700_000_100 })))).toEqual([]);
  });

  it('a conversation moved to another contact raises conversation_contact_changed beside any announced change', () => {
    const events = eventsOf(change('MODIFY', 'conversation', conversation(), conversation({ contact_id: 41, status: 'resolved' })));
    const names = events.map((e) => e.name);
    expect(names).toContain('conversation_contact_changed');
    expect(names).toContain('conversation_status_changed');
    expect(events.find((e) => e.name === 'conversation_contact_changed')!.changes).toEqual({ contact_id: [40, 41] });
  });

  it('a removed contact raises contact_deleted from its last image; a removed conversation conversation_deleted (reports only); other removals nothing', () => {
    const contact = {
      type: 'contact',
      account_id: 7,
      id: 40,
      name: 'Ana',
      email: 'ana@example.com',
      custom_attributes: {},
      additional_attributes: {},
    };
    const events = eventsOf(change('REMOVE', 'contact', contact, undefined));
    expect(events.map((e) => e.name)).toEqual(['contact_deleted']);
    expect(events[0].contact?.email).toBe('ana@example.com');
    const removed = eventsOf(change('REMOVE', 'conversation', conversation(), undefined));
    expect(removed.map((e) => [e.name, e.conversation?.id])).toEqual([['conversation_deleted', conversation().id]]);
    expect(eventsOf(change('REMOVE', 'message', { type: 'message', account_id: 7, id: 3, conversation_id: 1 }, undefined))).toEqual([]);
  });

  it('socket audiences: deletions and merges go to every user of the account, with the performer', () => {
    const deleted = eventsOf(
      change('REMOVE', 'contact', {
        type: 'contact',
        account_id: 7,
        id: 40,
        name: 'Ana',
        custom_attributes: {},
        additional_attributes: {},
      }),
    )[0];
    const frames = cableEventsOf(deleted, undefined, { performer: { id: 5, type: 'user' } });
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({
      name: 'contact.deleted',
      audience: { allUsers: true },
      data: { id: 40, account_id: 7, type: 'contact', performer: { id: 5 } },
    });
    const merged = cableEventsOf({ ...deleted, name: 'contact_merged', contact: undefined }, undefined, {
      mergedContact: { id: 41, type: 'contact' },
    });
    expect(merged[0]).toMatchObject({ name: 'contact.merged', audience: { allUsers: true }, data: { id: 41, account_id: 7 } });
    expect(cableEventsOf({ ...deleted, name: 'contact_merged', contact: undefined }, undefined)).toEqual([]);
  });
});
