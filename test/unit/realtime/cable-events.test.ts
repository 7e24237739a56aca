import { describe, expect, it } from 'vitest';
import { framesFor } from '#shared/realtime/audience.ts';
import { cableEventsOf, conversationOf } from '#shared/realtime/cable-events.ts';
import {
  contact,
  contactInbox,
  contactSub,
  context,
  conversation,
  domainEvent,
  message,
  notification,
  signal,
  T0,
  userSub,
} from '../support/records.ts';

// Domain events as socket events (shared/realtime/cable-events.ts), built from plain records: names, data
// (push data with the account id), and who hears them once the audience meets the subscriptions —
// administrators everything of their account, agents their inboxes, a contact its own conversation's
// public side only.

const admin = userSub(1, 'administrator');
const member = userSub(2, 'agent');
const outsider = userSub(3, 'agent');
const ana = contactSub(40, 'pubsub-ana');
const bob = contactSub(41, 'pubsub-bob');
const everyone = [admin, member, outsider, ana, bob];
const inboxMembers = new Set([2]);

/** Who hears each socket event of a domain event: `event name → hearers`. */
function heard(events: ReturnType<typeof cableEventsOf>) {
  const who = (s: (typeof everyone)[number]) => (s.kind === 'user' ? `user ${s.user_id}` : `contact ${s.contact_id}`);
  return events.map((e) => [e.name, framesFor([e], everyone, inboxMembers).map((f) => who(f.sub))]);
}

describe('messages', () => {
  it('message.created: the message push data with the account id, numeric message_type, its sender; to agents of the inbox and the contact', () => {
    const m = message();
    const events = cableEventsOf(domainEvent('message_created', { message: m }), context());
    expect(events).toHaveLength(1);
    const [e] = events;
    expect(e.name).toBe('message.created');
    expect(e.data).toMatchObject({
      id: 900,
      account_id: 7,
      inbox_id: 2,
      conversation_id: 3,
      content: 'Where is my order?',
      message_type: 0,
      private: false,
      created_at: T0 + 60,
      updated_at: new Date((T0 + 60) * 1000).toISOString(),
      sender: { id: 40, type: 'contact', name: 'Ana Lima', email: 'ana@example.com' },
      conversation: { assignee_id: null, unread_count: 1, last_activity_at: T0 + 60, contact_inbox: { source_id: 'src-40' } },
    });
    expect(e.data).not.toHaveProperty('echo_id');
    expect(e.data).not.toHaveProperty('performer');
    expect(e.audience).toEqual({ inboxId: 2, contactTokens: ['pubsub-ana'] });
    expect(heard(events)).toEqual([['message.created', ['user 1', 'user 2', 'contact 40']]]);
  });

  it('message.updated; the echo id and the performer travel when there are', () => {
    const m = message({ message_type: 1, sender_type: 'User', sender_id: 5, echo_id: 'tmp-123' });
    const [e] = cableEventsOf(domainEvent('message_updated', { message: m }), context(), { performer: { id: 5, type: 'user' } });
    expect(e.name).toBe('message.updated');
    expect(e.data).toMatchObject({
      echo_id: 'tmp-123',
      performer: { id: 5, type: 'user' },
      message_type: 1,
      sender: { id: 5, type: 'user', name: 'Bruno Costa' },
    });
  });

  it('a private note never reaches a contact, not even a verified one', () => {
    const verified = context({ contactInbox: contactInbox({ hmac_verified: true }) });
    const events = cableEventsOf(
      domainEvent('message_created', { message: message({ message_type: 1, private: true, sender_type: 'User', sender_id: 5 }) }),
      verified,
    );
    expect(events[0].audience).toEqual({ inboxId: 2 });
    expect(heard(events)).toEqual([['message.created', ['user 1', 'user 2']]]);
    const [updated] = cableEventsOf(domainEvent('message_updated', { message: message({ private: true }) }), verified);
    expect(updated.audience).toEqual({ inboxId: 2 });
  });

  it('neither does an activity message', () => {
    const events = cableEventsOf(
      domainEvent('message_created', {
        message: message({ message_type: 2, content: 'Conversation was resolved', sender_id: null, sender_type: null }),
      }),
      context(),
    );
    expect(events[0].audience).toEqual({ inboxId: 2 });
    expect(events[0].data).not.toHaveProperty('sender');
  });

  it('a verified contact inbox lets the contact’s other verified inboxes hear', () => {
    const [e] = cableEventsOf(
      domainEvent('message_created', { message: message() }),
      context({ contactInbox: contactInbox({ hmac_verified: true }) }),
    );
    expect(e.audience).toEqual({ inboxId: 2, contactTokens: ['pubsub-ana'], verifiedContactId: 40 });
  });

  it('no context or no message: nothing', () => {
    expect(cableEventsOf(domainEvent('message_created', { message: message() }), undefined)).toEqual([]);
    expect(cableEventsOf(domainEvent('message_created'), context())).toEqual([]);
  });

  it('a conversation without its contact inbox is told to agents only', () => {
    const [e] = cableEventsOf(domainEvent('message_created', { message: message() }), context({ contactInbox: undefined }));
    expect(e.audience).toEqual({ inboxId: 2 });
  });
});

describe('conversations', () => {
  const event = (name: Parameters<typeof domainEvent>[0], changes: Record<string, [unknown, unknown]> = {}) =>
    domainEvent(name, { conversation: conversation(), changes });

  it('conversation.created and conversation.status_changed: push data with the account id, to agents and the contact', () => {
    for (const [name, socket] of [
      ['conversation_created', 'conversation.created'],
      ['conversation_status_changed', 'conversation.status_changed'],
    ] as const) {
      const events = cableEventsOf(event(name), context());
      expect(events.map((e) => e.name)).toEqual([socket]);
      expect(events[0].data).toMatchObject({
        id: 3,
        account_id: 7,
        inbox_id: 2,
        status: 'open',
        channel: 'Channel::WebWidget',
        meta: { sender: { id: 40, type: 'contact' } },
      });
      expect(heard(events)).toEqual([[socket, ['user 1', 'user 2', 'contact 40']]]);
    }
  });

  it('conversation_updated: assignee.changed and team.changed to agents only, conversation.updated (other columns) to the contact too', () => {
    expect(heard(cableEventsOf(event('conversation_updated', { assignee_id: [null, 5] }), context()))).toEqual([
      ['assignee.changed', ['user 1', 'user 2']],
    ]);
    expect(heard(cableEventsOf(event('conversation_updated', { assignee_agent_bot_id: [null, 9] }), context()))).toEqual([
      ['assignee.changed', ['user 1', 'user 2']],
    ]);
    expect(heard(cableEventsOf(event('conversation_updated', { team_id: [null, 4] }), context()))).toEqual([
      ['team.changed', ['user 1', 'user 2']],
    ]);
    expect(
      heard(cableEventsOf(event('conversation_updated', { labels: [[], ['vip']], team_id: [null, 4], assignee_id: [null, 5] }), context())),
    ).toEqual([
      ['assignee.changed', ['user 1', 'user 2']],
      ['team.changed', ['user 1', 'user 2']],
      ['conversation.updated', ['user 1', 'user 2', 'contact 40']],
    ]);
  });

  it('a status change alone raises no conversation.updated (it travels as conversation.status_changed)', () => {
    expect(cableEventsOf(event('conversation_updated', { status: ['open', 'resolved'] }), context())).toEqual([]);
    expect(
      cableEventsOf(event('conversation_updated', { status: ['open', 'resolved'], priority: [null, 'high'] }), context()).map(
        (e) => e.name,
      ),
    ).toEqual(['conversation.updated']);
  });

  it('conversation.read and conversation.contact_changed: agents only', () => {
    expect(heard(cableEventsOf(event('conversation_read', { contact_last_seen_at: [null, T0 + 90] }), context()))).toEqual([
      ['conversation.read', ['user 1', 'user 2']],
    ]);
    expect(heard(cableEventsOf(event('conversation_contact_changed', { contact_id: [41, 40] }), context()))).toEqual([
      ['conversation.contact_changed', ['user 1', 'user 2']],
    ]);
  });

  it('nothing without the conversation’s context', () => {
    for (const name of [
      'conversation_created',
      'conversation_status_changed',
      'conversation_updated',
      'conversation_read',
      'conversation_contact_changed',
    ] as const) {
      expect(cableEventsOf(event(name, { labels: [[], ['x']] }), undefined), name).toEqual([]);
    }
  });
});

describe('typing', () => {
  it('an agent typing: the conversation, the typist, to everyone of the conversation but the typist', () => {
    const typist = { id: 1, name: 'Admin', type: 'user' };
    const events = cableEventsOf(
      domainEvent('conversation_typing_on', { signal: signal({ performed_by: { type: 'user', id: 1 } }) }),
      context(),
      { typist },
    );
    expect(events[0].name).toBe('conversation.typing_on');
    expect(events[0].data).toMatchObject({ account_id: 7, user: typist, is_private: false, conversation: { id: 3, inbox_id: 2 } });
    expect(heard(events)).toEqual([['conversation.typing_on', ['user 2', 'contact 40']]]);
  });

  it('a private note being typed stays with the agents', () => {
    const events = cableEventsOf(
      domainEvent('conversation_typing_off', { signal: signal({ name: 'conversation_typing_off', is_private: true }) }),
      context(),
    );
    expect(events[0]).toMatchObject({ name: 'conversation.typing_off', data: { is_private: true, user: null } });
    expect(heard(events)).toEqual([['conversation.typing_off', ['user 1', 'user 2']]]);
  });

  it('the contact typing does not hear itself', () => {
    const events = cableEventsOf(
      domainEvent('conversation_typing_on', { signal: signal({ performed_by: { type: 'contact', id: 40 } }) }),
      context(),
    );
    expect(events[0].audience).toEqual({ inboxId: 2, contactTokens: ['pubsub-ana'], exceptContactId: 40 });
    expect(heard(events)).toEqual([['conversation.typing_on', ['user 1', 'user 2']]]);
  });

  it('nothing without the signal or the context', () => {
    expect(cableEventsOf(domainEvent('conversation_typing_on'), context())).toEqual([]);
    expect(cableEventsOf(domainEvent('conversation_typing_on', { signal: signal() }), undefined)).toEqual([]);
  });
});

describe('contacts and notifications', () => {
  it('contact.created and contact.updated: contact push data to every user, no contact', () => {
    for (const [name, socket] of [
      ['contact_created', 'contact.created'],
      ['contact_updated', 'contact.updated'],
    ] as const) {
      const events = cableEventsOf(domainEvent(name, { contact: contact() }), undefined);
      expect(events[0]).toMatchObject({
        name: socket,
        data: { id: 40, account_id: 7, type: 'contact', email: 'ana@example.com', thumbnail: '' },
      });
      expect(heard(events)).toEqual([[socket, ['user 1', 'user 2', 'user 3']]]);
    }
    expect(cableEventsOf(domainEvent('contact_updated'), undefined)).toEqual([]);
  });

  it('notification.*: the notification and the user’s counts, to its user only', () => {
    const n = notification({ user_id: 3 });
    const [created] = cableEventsOf(domainEvent('notification_created', { notification: n }), undefined, {
      notificationCounts: { count: 4, unread_count: 2 },
    });
    expect(created).toMatchObject({
      name: 'notification.created',
      data: {
        account_id: 7,
        count: 4,
        unread_count: 2,
        notification: { id: 600, notification_type: 'conversation_assignment', primary_actor_id: 3, read_at: null },
      },
      audience: { userIds: [3] },
    });
    expect(heard([created])).toEqual([['notification.created', ['user 3']]]);
    const [deleted] = cableEventsOf(domainEvent('notification_deleted', { notification: n }), undefined);
    expect(deleted).toMatchObject({ name: 'notification.deleted', data: { count: 0, unread_count: 0 } });
    expect(cableEventsOf(domainEvent('notification_updated'), undefined)).toEqual([]);
  });

  it('events sockets do not carry: nothing', () => {
    expect(cableEventsOf(domainEvent('inbox_created'), undefined)).toEqual([]);
    expect(cableEventsOf(domainEvent('conversation_opened', { conversation: conversation() }), context())).toEqual([]);
    expect(cableEventsOf(domainEvent('webwidget_triggered', { signal: signal({ name: 'webwidget_triggered' }) }), context())).toEqual([]);
  });
});

describe('conversationOf', () => {
  it('the conversation an event concerns: its own, its message’s, its signal’s (not the widget opening)', () => {
    expect(conversationOf(domainEvent('conversation_updated', { conversation: conversation({ id: 11 }) }))).toBe(11);
    expect(conversationOf(domainEvent('message_created', { message: message({ conversation_id: 12 }) }))).toBe(12);
    expect(conversationOf(domainEvent('conversation_typing_on', { signal: signal({ conversation_id: 13 }) }))).toBe(13);
    expect(
      conversationOf(domainEvent('webwidget_triggered', { signal: signal({ name: 'webwidget_triggered', conversation_id: 14 }) })),
    ).toBeUndefined();
    expect(conversationOf(domainEvent('contact_updated', { contact: contact() }))).toBeUndefined();
  });
});
