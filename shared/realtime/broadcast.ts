import { onWrite } from '#shared/db/client.ts';
import { cableSubscriptionPartition } from '#shared/db/keys.ts';
import { listAccountSubscriptions } from '#shared/db/repositories/cable.ts';
import { ReadCache } from '#shared/db/repositories/common.ts';
import { getContact } from '#shared/db/repositories/contacts.ts';
import { getAccountUser, getUser, listAccountUsers } from '#shared/db/repositories/identity.ts';
import { listInboxMemberIds } from '#shared/db/repositories/inboxes.ts';
import { getNotificationCounts } from '#shared/db/repositories/notifications.ts';
import { contactPushJson } from '#shared/domain/contacts/view.ts';
import { userPushJson } from '#shared/domain/conversations/view.ts';
import type { DomainEvent, DomainEventName } from '#shared/domain/events/domain-events.ts';
import { conversationContext, type ConversationContext } from '#shared/domain/events/payloads.ts';
import { log } from '#shared/log.ts';
import type { CableSubscription } from '#shared/model/cable.ts';
import { framesFor, needsInboxMembers } from './audience.ts';
import { cableEventsOf, conversationOf } from './cable-events.ts';
import { cableSender, deliver } from './senders.ts';

// The pipeline stage that turns one domain event into socket frames, in four steps:
//   event    → what each listener is told (cable-events.ts: names, data, who may hear it),
//   audience → the account's live subscriptions, with roles and inbox memberships as they stand now,
//   frames   → one frame per subscription that hears an event (audience.ts),
//   sender   → the transport of this deployment (senders.ts); connections found gone are removed.

/**
 * How long a dispatcher container trusts the list of an account's live socket subscriptions (AP151). A
 * socket that subscribed less than this long ago may miss the frames of events dispatched meanwhile by a
 * container that read the list before; one that went away meanwhile costs a PostToConnection answered 410.
 * Short, because a frame missed is gone for that socket; long enough that a busy account's events share
 * one read (at 200 events/s, one Query per second instead of 200).
 */
export const SUBSCRIPTIONS_CACHE_TTL_MS = 1_000;

/** This stage's cache of each account's subscriptions. */
export const subscriptionsCache = new ReadCache(SUBSCRIPTIONS_CACHE_TTL_MS);

// The container's own writes of subscriptions drop their cache at once.
onWrite((written) => {
  if (written.some((k) => cableSubscriptionPartition(k.pk))) subscriptionsCache.forget();
});

const CABLE_EVENTS = new Set<DomainEventName>([
  'message_created',
  'message_updated',
  'conversation_created',
  'conversation_updated',
  'conversation_status_changed',
  'conversation_typing_on',
  'conversation_typing_off',
  'contact_created',
  'contact_updated',
  'notification_created',
  'notification_updated',
  'notification_deleted',
  'conversation_read',
  'conversation_contact_changed',
  'contact_deleted',
  'contact_merged',
]);

/** Chatwoot's `performer`: the user whose request made the change (none for contacts, bots and rules). */
async function performerOf(event: DomainEvent) {
  const by = event.performedBy;
  if (by?.type !== 'user') return null;
  const [user, membership] = await Promise.all([getUser(by.id), getAccountUser(event.accountId, by.id)]);
  return user ? userPushJson({ user, membership }) : null;
}

/**
 * Subscriptions as the account's memberships stand now (the dispatcher's short cache): a user promoted,
 * demoted or removed since subscribing hears what their role allows today, without reconnecting.
 */
async function withCurrentRoles(accountId: number, subs: CableSubscription[]): Promise<CableSubscription[]> {
  if (!subs.some((s) => s.kind === 'user')) return subs;
  const roles = new Map((await listAccountUsers(accountId)).map((m) => [m.user_id, m.role]));
  return subs.flatMap((s) => {
    if (s.kind !== 'user' || s.user_id === null) return [s];
    const role = roles.get(s.user_id);
    return role ? [{ ...s, role }] : [];
  });
}

async function typistOf(event: DomainEvent, ctx: ConversationContext | undefined) {
  const by = event.signal?.performed_by;
  if (!by || !ctx) return null;
  if (by.type === 'user') {
    const [user, membership] = await Promise.all([getUser(by.id), getAccountUser(event.accountId, by.id)]);
    return user ? userPushJson({ user, membership }) : null;
  }
  if (by.type === 'contact') {
    const contact = ctx.refs.contacts.get(by.id) ?? (await getContact(event.accountId, by.id));
    return contact ? contactPushJson(contact) : null;
  }
  return null;
}

/**
 * Sends one domain event to the sockets that hear it. `ctx`: the conversation context the dispatcher
 * already read, when it has one. Best effort, like ActionCable: a failure is logged and never holds
 * back the webhooks of the same event.
 */
export async function broadcastEvent(event: DomainEvent, ctx?: ConversationContext): Promise<number> {
  const sender = cableSender();
  if (!sender || !CABLE_EVENTS.has(event.name)) return 0;
  try {
    // Nobody of the account connected: one small Query and done.
    const stored = await subscriptionsCache.get(String(event.accountId), () => listAccountSubscriptions(event.accountId));
    if (!stored.length) return 0;
    // A notification concerns one user: only their connection makes it worth going on.
    const n = event.notification;
    if (n && !stored.some((x) => x.kind === 'user' && x.user_id === n.user_id)) return 0;

    const context = await contextOf(event, ctx);
    const events = cableEventsOf(event, context, await extrasOf(event, context));
    const subs = await withCurrentRoles(event.accountId, stored);
    const inboxId = events.find((e) => needsInboxMembers(subs, e.audience))?.audience.inboxId;
    const members = new Set(inboxId !== undefined ? await listInboxMemberIds(event.accountId, inboxId) : []);
    const sent = await deliver(sender, framesFor(events, subs, members));
    log.debug('event broadcast', { eventId: event.id, event: event.name, frames: sent });
    return sent;
  } catch (error) {
    log.error('broadcast failed', { eventId: event.id, event: event.name, error });
    return 0;
  }
}

/** The conversation the event concerns, as the dispatcher read it or read now. */
async function contextOf(event: DomainEvent, ctx: ConversationContext | undefined) {
  if (ctx) return ctx;
  const conversationId = conversationOf(event);
  if (conversationId === undefined) return undefined;
  return conversationContext(event.accountId, conversationId, event.conversation, event.message ? [event.message] : []);
}

/** What some events carry beyond their records: the typist, notification counts, the performer, a merged contact. */
async function extrasOf(event: DomainEvent, context: ConversationContext | undefined) {
  const typing = event.name === 'conversation_typing_on' || event.name === 'conversation_typing_off';
  const n = event.notification;
  const counts = n ? await getNotificationCounts(n.account_id, n.user_id) : undefined;
  const merged =
    event.name === 'contact_merged' && event.signal?.contact_id != null
      ? await getContact(event.accountId, event.signal.contact_id)
      : undefined;
  return {
    typist: typing ? await typistOf(event, context) : undefined,
    notificationCounts: counts ? { count: counts.total, unread_count: counts.unread } : undefined,
    performer: await performerOf(event),
    mergedContact: merged ? contactPushJson(merged) : null,
  };
}
