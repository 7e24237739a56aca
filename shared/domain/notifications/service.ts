import { hashToken } from '#shared/crypto/tokens.ts';
import * as repo from '#shared/db/repositories/notifications.ts';
import type { Actor } from '#shared/model/actor.ts';
import { forbidden, invalidField, notFound } from '#shared/errors.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { now } from '#shared/model/time.ts';
import { defaultSettings, type NotificationRecord, type PushSubscriptionRecord } from '#shared/model/notifications.ts';
import type { PushSubscriptionInput } from './schemas.ts';
import { notificationJson, notificationModelJson, notificationSettingsJson, pushSubscriptionJson } from './view.ts';
import { pageNumber } from '../paging.ts';

// The signed-in user's notifications in an account (Chatwoot's NotificationsController and
// NotificationFinder). The pipeline creates them; these read and mark them.

export const NOTIFICATIONS_PER_PAGE = 15;

function userOf(actor: Actor) {
  if (actor.type !== 'user') throw forbidden('Agent bot tokens cannot call this endpoint');
  return actor.user;
}

/** `includes[]=read&includes[]=snoozed`: without `read`, only unread notifications are listed. */
const includes = (query: Record<string, string>) => (query['includes[]'] ?? query.includes ?? '').split(',').map((s) => s.trim());

/**
 * The notifications snoozed now (`snoozed_until` still ahead), which Chatwoot's NotificationFinder leaves out
 * unless `includes[]=snoozed`: read from their sparse index, so lists and counts skip them exactly, without a
 * job that wakes them (a snooze past its time is simply over).
 */
async function snoozedNow(accountId: number, userId: number) {
  const t = now();
  return (await repo.listSnoozedNotifications(accountId, userId)).filter((n) => n.snoozed_until !== null && n.snoozed_until > t);
}

export async function listNotifications(account: AccountRecord, actor: Actor, query: Record<string, string>) {
  const user = userOf(actor);
  const page = pageNumber(query.page);
  const unreadOnly = !includes(query).includes('read');
  const withSnoozed = includes(query).includes('snoozed');
  const newestFirst = (query.sort_order ?? 'desc').toLowerCase() !== 'asc';
  const [counts, snoozed] = await Promise.all([
    repo.getNotificationCounts(account.id, user.id),
    withSnoozed ? [] : snoozedNow(account.id, user.id),
  ]);
  const hidden = new Set(snoozed.filter((n) => !unreadOnly || n.read_at === null).map((n) => n.id));
  const hiddenUnread = snoozed.filter((n) => n.read_at === null).length;
  const limit = page * NOTIFICATIONS_PER_PAGE + hidden.size;
  const items = (await repo.listNotifications(account.id, user.id, limit, newestFirst, unreadOnly)).filter((n) => !hidden.has(n.id));
  const unread = Math.max(0, counts.unread - hiddenUnread);
  return {
    data: {
      meta: { unread_count: unread, count: unreadOnly ? unread : Math.max(0, counts.total - hidden.size), current_page: page },
      payload: items.slice((page - 1) * NOTIFICATIONS_PER_PAGE, page * NOTIFICATIONS_PER_PAGE).map(notificationJson),
    },
  };
}

/** Unread and not snoozed now, as Chatwoot's finder counts by default. */
export async function unreadCount(account: AccountRecord, actor: Actor) {
  const user = userOf(actor);
  const [counts, snoozed] = await Promise.all([repo.getNotificationCounts(account.id, user.id), snoozedNow(account.id, user.id)]);
  return Math.max(0, counts.unread - snoozed.filter((n) => n.read_at === null).length);
}

/** `POST notifications/{id}/snooze {snoozed_until}` (Unix seconds); without it, the notification as it is. */
export async function snooze(account: AccountRecord, actor: Actor, id: number, until: number | undefined) {
  const n = await own(account, actor, id);
  if (until === undefined) return notificationModelJson(n);
  if (!(await repo.setNotificationSnooze(n, until))) throw notFound('Notification');
  return notificationModelJson({ ...n, snoozed_until: until });
}

async function own(account: AccountRecord, actor: Actor, id: number) {
  const n = await repo.getNotification(account.id, userOf(actor).id, id, true);
  if (!n) throw notFound('Notification');
  return n;
}

/** `PATCH notifications/{id}`: read. */
export async function markRead(account: AccountRecord, actor: Actor, id: number) {
  const n = await own(account, actor, id);
  if (n.read_at !== null) return notificationModelJson(n);
  const t = now();
  await repo.setNotificationRead(n, t);
  return notificationModelJson({ ...n, read_at: t });
}

/** `POST notifications/{id}/unread`. */
export async function markUnread(account: AccountRecord, actor: Actor, id: number) {
  const n = await own(account, actor, id);
  if (n.read_at !== null) await repo.setNotificationRead(n, null);
  return notificationModelJson({ ...n, read_at: null });
}

/** `POST notifications/read_all`, optionally only those about one conversation. */
export async function readAll(
  account: AccountRecord,
  actor: Actor,
  input: { primary_actor_type?: string | null; primary_actor_id?: number | null },
) {
  const user = userOf(actor);
  let unread = await repo.listUnreadNotifications(account.id, user.id);
  if (input.primary_actor_type && input.primary_actor_id) {
    if (input.primary_actor_type !== 'Conversation') return;
    unread = unread.filter((n) => n.primary_actor_id === input.primary_actor_id);
  }
  const t = now();
  // Each one moves the counter in its own small transaction, so a concurrent read never counts twice.
  for (let i = 0; i < unread.length; i += 10) await Promise.all(unread.slice(i, i + 10).map((n) => repo.setNotificationRead(n, t)));
}

export async function destroyNotification(account: AccountRecord, actor: Actor, id: number) {
  const n: NotificationRecord = await own(account, actor, id);
  await repo.deleteNotification(n);
}

export async function showSettings(account: AccountRecord, actor: Actor) {
  const user = userOf(actor);
  const [s] = await repo.getNotificationSettings(account.id, [user.id]);
  return notificationSettingsJson(s ?? defaultSettings(account.id, user.id));
}

export async function updateSettings(
  account: AccountRecord,
  actor: Actor,
  input: { selected_email_flags?: string[]; selected_push_flags?: string[] },
) {
  const user = userOf(actor);
  const [before] = await repo.getNotificationSettings(account.id, [user.id]);
  const current = before ?? defaultSettings(account.id, user.id);
  const after = {
    ...current,
    selected_email_flags: input.selected_email_flags ?? current.selected_email_flags,
    selected_push_flags: input.selected_push_flags ?? current.selected_push_flags,
    updated_at: now(),
  };
  await repo.putNotificationSettings(after);
  return notificationSettingsJson(after);
}

/**
 * `POST /api/v1/notification_subscriptions`: a device (FCM token) or browser (Web Push endpoint) that
 * a push sender can reach; saving the same identifier again replaces it.
 */
export async function subscribe(userId: number, input: PushSubscriptionInput) {
  const a = input.subscription_attributes;
  const identifier = input.subscription_type === 'fcm' ? a.push_token : a.endpoint;
  if (!identifier) {
    throw invalidField(
      `subscription_attributes.${input.subscription_type === 'fcm' ? 'push_token' : 'endpoint'}`,
      'is required',
      'required',
    );
  }
  const hash = hashToken(identifier);
  const before = await repo.getPushSubscription(userId, hash);
  const t = now();
  const s: PushSubscriptionRecord = {
    user_id: userId,
    subscription_type: input.subscription_type,
    subscription_attributes: Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)),
    identifier,
    created_at: before?.created_at ?? t,
    updated_at: t,
  };
  await repo.putPushSubscription(s, hash);
  return pushSubscriptionJson(s, parseInt(hash.slice(0, 12), 16));
}

/** `DELETE /api/v1/notification_subscriptions {push_token}`. */
export async function unsubscribe(userId: number, pushToken: string) {
  await repo.deletePushSubscription(userId, hashToken(pushToken));
}
