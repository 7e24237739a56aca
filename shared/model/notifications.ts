// Stored records of the notifications area. Times are Unix seconds.

export const NOTIFICATION_TYPES = [
  'conversation_creation',
  'conversation_assignment',
  'assigned_conversation_new_message',
  'conversation_mention',
  'participating_conversation_new_message',
  // Chatwoot's enterprise SLA misses (docs/sla.md).
  'sla_missed_first_response',
  'sla_missed_next_response',
  'sla_missed_resolution',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export const EMAIL_FLAGS = NOTIFICATION_TYPES.map((t) => `email_${t}`);
export const PUSH_FLAGS = NOTIFICATION_TYPES.map((t) => `push_${t}`);

export interface NotificationRecord {
  id: number;
  account_id: number;
  user_id: number;
  notification_type: NotificationType;
  primary_actor_type: 'Conversation';
  /** The conversation's display id. */
  primary_actor_id: number;
  /** Push data of the conversation and of the message or user that caused it, as they were when it was made. */
  primary_actor: Record<string, unknown> | null;
  secondary_actor: Record<string, unknown> | null;
  secondary_actor_type: 'Message' | 'User' | 'SlaPolicy' | null;
  secondary_actor_id: number | null;
  user: Record<string, unknown> | null;
  push_message_title: string;
  read_at: number | null;
  snoozed_until: number | null;
  created_at: number;
  last_activity_at: number;
}

export interface NotificationSettingsRecord {
  account_id: number;
  user_id: number;
  selected_email_flags: string[];
  selected_push_flags: string[];
  updated_at: number;
}

/** What a user who never saved settings gets (Chatwoot's AccountUser#create_notification_setting). */
export const defaultSettings = (accountId: number, userId: number): NotificationSettingsRecord => ({
  account_id: accountId,
  user_id: userId,
  selected_email_flags: ['email_conversation_assignment'],
  selected_push_flags: ['push_conversation_assignment'],
  updated_at: 0,
});

export interface PushSubscriptionRecord {
  user_id: number;
  subscription_type: 'browser_push' | 'fcm';
  subscription_attributes: Record<string, unknown>;
  identifier: string;
  created_at: number;
  updated_at: number;
}
