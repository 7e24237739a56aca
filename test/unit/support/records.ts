import type { AccountRecord, AccountUserRecord, AgentBotRecord, Role, UserRecord } from '#shared/model/identity.ts';
import type { CableSubscription } from '#shared/model/cable.ts';
import type { ContactInboxRecord, ContactRecord } from '#shared/model/contacts.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import type { NotificationRecord } from '#shared/model/notifications.ts';
import type { TeamRecord } from '#shared/model/teams.ts';
import type { SignalRecord } from '#shared/model/signals.ts';
import type { Refs } from '#shared/domain/conversations/view.ts';
import type { ConversationContext } from '#shared/domain/events/payloads.ts';
import type { DomainEvent, DomainEventName } from '#shared/domain/events/domain-events.ts';

// Plain records as the table stores them, for unit tests of pure rules: one account (7), one inbox (2),
// one contact (40) in one conversation (display id 3). File references are empty, so views render them
// without a signing key or configuration.

export const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z

export const account = (over: Partial<AccountRecord> = {}): AccountRecord => ({
  id: 7,
  name: 'Acme',
  locale: 'en',
  domain: null,
  support_email: null,
  status: 'active',
  limits: {},
  custom_attributes: {},
  features: {},
  created_at: T0,
  updated_at: T0,
  ...over,
});

export const contact = (over: Partial<ContactRecord> = {}): ContactRecord => ({
  id: 40,
  account_id: 7,
  name: 'Ana Lima',
  email: 'ana@example.com',
  phone_number: '+5511987654321',
  identifier: 'ana-1',
  thumbnail: '',
  additional_attributes: { city: 'Recife', country_code: 'BR', company: 'Lima & Co' },
  custom_attributes: { plan: 'gold' },
  labels: [],
  last_activity_at: T0 + 50,
  contact_type: 'lead',
  blocked: false,
  location: 'Recife',
  country_code: 'BR',
  created_at: T0,
  updated_at: T0 + 50,
  version: 3,
  ...over,
});

export const message = (over: Partial<MessageRecord> = {}): MessageRecord => ({
  id: 900,
  account_id: 7,
  inbox_id: 2,
  conversation_id: 3,
  message_type: 0,
  content: 'Where is my order?',
  content_type: 'text',
  content_attributes: {},
  status: 'sent',
  private: false,
  source_id: null,
  sender_type: 'Contact',
  sender_id: 40,
  external_source_ids: {},
  additional_attributes: {},
  processed_message_content: 'Where is my order?',
  sentiment: {},
  attachments: [],
  created_at: T0 + 60,
  updated_at: T0 + 60,
  performed_by: { type: 'contact', id: 40 },
  ...over,
});

export const conversation = (over: Partial<ConversationRecord> = {}): ConversationRecord => ({
  id: 3,
  account_id: 7,
  inbox_id: 2,
  contact_id: 40,
  source_id: 'src-40',
  hmac_verified: false,
  uuid: '5f0c6a52-8a6e-4d5e-9f1b-2b1f6f1d2c3a',
  status: 'open',
  assignee_id: null,
  assignee_agent_bot_id: null,
  team_id: null,
  priority: null,
  snoozed_until: null,
  labels: [],
  custom_attributes: {},
  additional_attributes: { browser_language: 'pt-BR', referer: 'https://shop.example.com/cart' },
  agent_last_seen_at: null,
  assignee_last_seen_at: null,
  contact_last_seen_at: null,
  first_reply_created_at: null,
  waiting_since: T0 + 60,
  last_incoming_at: T0 + 60,
  unread_count: 1,
  last_activity_at: T0 + 60,
  last_message: null,
  last_non_activity_message: null,
  created_at: T0 + 10,
  updated_at: T0 + 60.25,
  version: 2,
  updated_by: { type: 'contact', id: 40 },
  ...over,
});

export const contactInbox = (over: Partial<ContactInboxRecord> = {}): ContactInboxRecord => ({
  id: 77,
  account_id: 7,
  contact_id: 40,
  inbox_id: 2,
  source_id: 'src-40',
  pubsub_token: 'pubsub-ana',
  hmac_verified: false,
  created_at: T0 + 5,
  updated_at: T0 + 5,
  ...over,
});

export const inbox = (over: Partial<InboxRecord> = {}): InboxRecord =>
  ({
    id: 2,
    account_id: 7,
    name: 'Website',
    channel_type: 'Channel::WebWidget',
    channel_id: 12,
    avatar_url: '',
    greeting_enabled: false,
    greeting_message: null,
    enable_email_collect: true,
    csat_survey_enabled: false,
    csat_config: {},
    enable_auto_assignment: true,
    auto_assignment_config: {},
    working_hours_enabled: false,
    out_of_office_message: null,
    working_hours: [],
    timezone: 'UTC',
    allow_messages_after_resolved: true,
    lock_to_single_conversation: false,
    portal_id: null,
    sender_name_type: 'friendly',
    business_name: null,
    agent_bot_id: null,
    website_url: 'https://shop.example.com',
    widget_color: '#1f93ff',
    website_token: 'wt-123',
    welcome_title: null,
    welcome_tagline: null,
    reply_time: 'in_a_few_minutes',
    pre_chat_form_enabled: false,
    pre_chat_form_options: null,
    continuity_via_email: true,
    allowed_domains: null,
    selected_feature_flags: [],
    hmac_token: 'hmac-secret-of-the-inbox',
    hmac_mandatory: false,
    webhook_url: null,
    inbox_identifier: null,
    additional_attributes: null,
    callback_webhook_url: null,
    email: null,
    forward_to_email: null,
    email_settings: null,
    phone_number: null,
    provider: null,
    provider_config: null,
    messaging_service_sid: null,
    medium: null,
    line_channel_id: null,
    line_channel_secret: null,
    line_channel_token: null,
    bot_token: null,
    bot_name: null,
    created_at: T0,
    updated_at: T0 + 1,
    version: 1,
    ...over,
  }) as InboxRecord;

export const user = (over: Partial<UserRecord> = {}): UserRecord => ({
  id: 5,
  name: 'Bruno Costa',
  display_name: 'Bruno',
  email: 'bruno@acme.test',
  password_hash: 'hash',
  custom_attributes: {},
  ui_settings: {},
  message_signature: null,
  pubsub_token: 'pubsub-bruno',
  avatar_url: '',
  sealed_token: 'sealed',
  token_hash: 'token-hash',
  created_by_app: null,
  created_at: T0,
  updated_at: T0,
  ...over,
});

export const membership = (over: Partial<AccountUserRecord> = {}): AccountUserRecord => ({
  id: 50,
  account_id: 7,
  user_id: 5,
  role: 'agent',
  inviter_id: null,
  created_at: T0,
  updated_at: T0,
  active_at: null,
  availability: 'online',
  auto_offline: true,
  custom_role_id: null,
  agent_capacity_policy_id: null,
  ...over,
});

export const bot = (over: Partial<AgentBotRecord> = {}): AgentBotRecord => ({
  id: 9,
  name: 'Helper',
  description: null,
  outgoing_url: 'https://bot.example.com/hook',
  thumbnail: '',
  bot_type: 'webhook',
  bot_config: {},
  account_id: 7,
  sealed_token: 'sealed',
  token_hash: 'bot-hash',
  created_by_app: null,
  created_at: T0,
  updated_at: T0,
  ...over,
});

export const team = (over: Partial<TeamRecord> = {}): TeamRecord => ({
  id: 4,
  account_id: 7,
  name: 'sales',
  description: 'Sales team',
  allow_auto_assign: true,
  created_at: T0,
  updated_at: T0,
  version: 1,
  ...over,
});

export const notification = (over: Partial<NotificationRecord> = {}): NotificationRecord => ({
  id: 600,
  account_id: 7,
  user_id: 5,
  notification_type: 'conversation_assignment',
  primary_actor_type: 'Conversation',
  primary_actor_id: 3,
  primary_actor: { id: 3 },
  secondary_actor: null,
  secondary_actor_type: null,
  secondary_actor_id: null,
  user: null,
  push_message_title: 'A conversation (#3) has been assigned to you',
  read_at: null,
  snoozed_until: null,
  created_at: T0 + 70,
  last_activity_at: T0 + 70,
  ...over,
});

/** A user's subscription to its account's RoomChannel. */
export const userSub = (userId: number, role: Role, over: Partial<CableSubscription> = {}): CableSubscription => ({
  connection_id: `conn-user-${userId}`,
  identifier: JSON.stringify({ channel: 'RoomChannel', pubsub_token: `pubsub-user-${userId}` }),
  identifier_hash: `hash-user-${userId}`,
  account_id: 7,
  kind: 'user',
  user_id: userId,
  role,
  contact_id: null,
  pubsub_token: null,
  hmac_verified: false,
  created_at: T0,
  ...over,
});

/** A contact's subscription through one contact inbox (the widget's RoomChannel). */
export const contactSub = (contactId: number, token: string, over: Partial<CableSubscription> = {}): CableSubscription => ({
  connection_id: `conn-contact-${token}`,
  identifier: JSON.stringify({ channel: 'RoomChannel', pubsub_token: token }),
  identifier_hash: `hash-contact-${token}`,
  account_id: 7,
  kind: 'contact',
  user_id: null,
  role: null,
  contact_id: contactId,
  pubsub_token: token,
  hmac_verified: false,
  created_at: T0,
  ...over,
});

/** The records a conversation's views refer to: its contact, inbox, an agent (5, Bruno), a bot (9), a team (4). */
export const refs = (over: Partial<Refs> = {}): Refs => ({
  accountId: 7,
  contacts: new Map([[40, contact()]]),
  inboxes: new Map([[2, inbox()]]),
  users: new Map([[5, { user: user(), membership: membership() }]]),
  bots: new Map([[9, bot()]]),
  teams: new Map([[4, team()]]),
  myTeams: new Set(),
  slaPolicies: new Map(),
  ...over,
});

/** What a payload about one conversation needs (the broadcast stage and the dispatcher load it). */
export const context = (over: Partial<ConversationContext> = {}): ConversationContext => ({
  account: account(),
  conversation: conversation(),
  refs: refs(),
  contactInbox: contactInbox(),
  ...over,
});

/** A domain event as `eventsOf` names it, about account 7. */
export const domainEvent = (name: DomainEventName, over: Partial<DomainEvent> = {}): DomainEvent => ({
  id: `rec-1:${name}`,
  name,
  accountId: 7,
  scope: 'CONV#7#3',
  at: T0 + 60,
  performedBy: null,
  changes: {},
  changedAttributes: null,
  ...over,
});

/** A short-lived event item (typing, widget opened). */
export const signal = (over: Partial<SignalRecord> = {}): SignalRecord => ({
  name: 'conversation_typing_on',
  account_id: 7,
  conversation_id: 3,
  contact_id: null,
  inbox_id: 2,
  performed_by: { type: 'user', id: 5 },
  is_private: false,
  data: {},
  created_at: T0 + 80,
  ...over,
});
