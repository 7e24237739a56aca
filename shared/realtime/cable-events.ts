import { contactPushJson } from '#shared/domain/contacts/view.ts';
import { messagePushJson } from '#shared/domain/conversations/view.ts';
import { notificationJson } from '#shared/domain/notifications/view.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import type { DomainEvent } from '#shared/domain/events/domain-events.ts';
import { conversationPushData, type ConversationContext } from '#shared/domain/events/payloads.ts';
import type { Audience, CableEvent } from './audience.ts';

// Domain events as socket events (Chatwoot's ActionCableListener): names, payloads (push_event_data with
// the account id) and audiences. Pure: the broadcast stage loads what it needs and sends.

/** Conversation columns whose change Chatwoot announces under their own event name. */
const OWN_EVENT = new Set(['status', 'assignee_id', 'assignee_agent_bot_id', 'team_id']);

const ACTIVITY = 2;

/** A conversation's contact hears it through the conversation's contact inbox (and, verified, all verified ones). */
function contactAudience(ctx: ConversationContext): Pick<Audience, 'contactTokens' | 'verifiedContactId'> {
  const ci = ctx.contactInbox;
  if (!ci) return {};
  return { contactTokens: [ci.pubsub_token], ...(ci.hmac_verified ? { verifiedContactId: ci.contact_id } : {}) };
}

export interface EventExtras {
  /** push_event_data of the user who made the change (Chatwoot's `performer`, from `Current.user`). */
  performer?: Record<string, unknown> | null;
  /** The surviving contact of a merge (contact_merged carries only its id). */
  mergedContact?: Record<string, unknown> | null;
  /** push_event_data of whoever typed (typing events). */
  typist?: Record<string, unknown> | null;
  /** The notification user's counts after the change (notification events). */
  notificationCounts?: { count: number; unread_count: number };
}

/** The conversation an event concerns, or none: the broadcast stage loads its context. */
export function conversationOf(event: DomainEvent): number | undefined {
  if (event.conversation) return event.conversation.id;
  if (event.message) return event.message.conversation_id;
  if (event.signal?.conversation_id != null && event.name !== 'webwidget_triggered') return event.signal.conversation_id;
  return undefined;
}

export function cableEventsOf(event: DomainEvent, ctx: ConversationContext | undefined, extras: EventExtras = {}): CableEvent[] {
  const account_id = event.accountId;
  const withAccount = (data: object) => ({ ...data, account_id, ...(extras.performer ? { performer: extras.performer } : {}) });
  switch (event.name) {
    case 'message_created':
    case 'message_updated': {
      if (!ctx || !event.message) return [];
      const m: MessageRecord = event.message;
      const hidden = m.private || m.message_type === ACTIVITY;
      const data = withAccount({ ...messagePushJson(m, ctx.conversation, ctx.refs), ...(m.echo_id ? { echo_id: m.echo_id } : {}) });
      const audience: Audience = { inboxId: ctx.conversation.inbox_id, ...(hidden ? {} : contactAudience(ctx)) };
      return [{ name: event.name === 'message_created' ? 'message.created' : 'message.updated', data, audience }];
    }
    case 'conversation_created':
      if (!ctx) return [];
      return [
        {
          name: 'conversation.created',
          data: withAccount(conversationPushData(ctx)),
          audience: { inboxId: ctx.conversation.inbox_id, ...contactAudience(ctx) },
        },
      ];
    case 'conversation_status_changed':
      if (!ctx) return [];
      return [
        {
          name: 'conversation.status_changed',
          data: withAccount(conversationPushData(ctx)),
          audience: { inboxId: ctx.conversation.inbox_id, ...contactAudience(ctx) },
        },
      ];
    case 'conversation_updated': {
      if (!ctx) return [];
      const data = withAccount(conversationPushData(ctx));
      const audience: Audience = { inboxId: ctx.conversation.inbox_id };
      const changed = Object.keys(event.changes);
      const out: CableEvent[] = [];
      if (changed.includes('assignee_id') || changed.includes('assignee_agent_bot_id'))
        out.push({ name: 'assignee.changed', data, audience });
      if (changed.includes('team_id')) out.push({ name: 'team.changed', data, audience });
      // Status changes travel as conversation.status_changed (their own domain event). The contact hears
      // conversation.updated too (its widget shows the conversation's state), never who it is assigned to.
      if (changed.some((k) => !OWN_EVENT.has(k)))
        out.push({ name: 'conversation.updated', data, audience: { ...audience, ...contactAudience(ctx) } });
      return out;
    }
    case 'conversation_read':
    case 'conversation_contact_changed':
      // Agents only: the contact's own reading, or the conversation moving to another contact.
      if (!ctx) return [];
      return [
        {
          name: event.name === 'conversation_read' ? 'conversation.read' : 'conversation.contact_changed',
          data: withAccount(conversationPushData(ctx)),
          audience: { inboxId: ctx.conversation.inbox_id },
        },
      ];
    case 'conversation_typing_on':
    case 'conversation_typing_off': {
      if (!ctx || !event.signal) return [];
      const s = event.signal;
      const by = s.performed_by;
      const audience: Audience = {
        inboxId: ctx.conversation.inbox_id,
        // A private note being typed is for agents only.
        ...(s.is_private ? {} : contactAudience(ctx)),
        ...(by?.type === 'user' ? { exceptUserId: by.id } : {}),
        ...(by?.type === 'contact' ? { exceptContactId: by.id } : {}),
      };
      const data = withAccount({ conversation: conversationPushData(ctx), user: extras.typist ?? null, is_private: s.is_private });
      return [{ name: event.name === 'conversation_typing_on' ? 'conversation.typing_on' : 'conversation.typing_off', data, audience }];
    }
    case 'contact_created':
    case 'contact_updated':
      if (!event.contact) return [];
      return [
        {
          name: event.name === 'contact_created' ? 'contact.created' : 'contact.updated',
          data: withAccount(contactPushJson(event.contact)),
          audience: { allUsers: true },
        },
      ];
    case 'contact_deleted':
      // The contact as it was (its last image): the account's users drop it from their lists.
      if (!event.contact) return [];
      return [{ name: 'contact.deleted', data: withAccount(contactPushJson(event.contact)), audience: { allUsers: true } }];
    case 'contact_merged':
      if (!extras.mergedContact) return [];
      return [{ name: 'contact.merged', data: withAccount(extras.mergedContact), audience: { allUsers: true } }];
    case 'notification_created':
    case 'notification_updated':
    case 'notification_deleted': {
      const n = event.notification;
      if (!n) return [];
      const name = `notification.${event.name.slice('notification_'.length)}`;
      const counts = extras.notificationCounts ?? { count: 0, unread_count: 0 };
      return [{ name, data: withAccount({ notification: notificationJson(n), ...counts }), audience: { userIds: [n.user_id] } }];
    }
    default:
      return [];
  }
}
