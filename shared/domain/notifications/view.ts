import type { NotificationRecord, NotificationSettingsRecord, PushSubscriptionRecord } from '#shared/model/notifications.ts';
import { EMAIL_FLAGS, PUSH_FLAGS } from '#shared/model/notifications.ts';

const iso = (t: number | null) => (t === null ? null : new Date(t * 1000).toISOString());

/** One entry of `GET notifications` (Chatwoot's notification partial). */
export const notificationJson = (n: NotificationRecord) => ({
  id: n.id,
  notification_type: n.notification_type,
  push_message_title: n.push_message_title,
  primary_actor_type: n.primary_actor_type,
  primary_actor_id: n.primary_actor_id,
  primary_actor: n.primary_actor,
  read_at: iso(n.read_at),
  secondary_actor: n.secondary_actor,
  user: n.user,
  created_at: n.created_at,
  last_activity_at: n.last_activity_at,
  snoozed_until: iso(n.snoozed_until),
  meta: {},
  account_id: n.account_id,
});

/** The model as Rails renders it (`render json: @notification` on update and unread). */
export const notificationModelJson = (n: NotificationRecord) => ({
  id: n.id,
  account_id: n.account_id,
  user_id: n.user_id,
  notification_type: n.notification_type,
  primary_actor_type: n.primary_actor_type,
  primary_actor_id: n.primary_actor_id,
  secondary_actor_type: n.secondary_actor_type,
  secondary_actor_id: n.secondary_actor_id,
  read_at: iso(n.read_at),
  created_at: iso(n.created_at),
  updated_at: iso(Math.max(n.created_at, n.read_at ?? 0)),
  snoozed_until: iso(n.snoozed_until),
  last_activity_at: iso(n.last_activity_at),
  meta: {},
});

export const notificationSettingsJson = (s: NotificationSettingsRecord) => ({
  id: s.user_id,
  user_id: s.user_id,
  account_id: s.account_id,
  all_email_flags: EMAIL_FLAGS,
  selected_email_flags: s.selected_email_flags,
  all_push_flags: PUSH_FLAGS,
  selected_push_flags: s.selected_push_flags,
});

export const pushSubscriptionJson = (s: PushSubscriptionRecord, id: number) => ({
  id,
  user_id: s.user_id,
  subscription_type: s.subscription_type,
  subscription_attributes: s.subscription_attributes,
  identifier: s.identifier,
  created_at: iso(s.created_at),
  updated_at: iso(s.updated_at),
});
