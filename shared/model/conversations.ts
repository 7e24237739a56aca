import type { Actor } from './actor.ts';
import type { MessageRecord, Performer } from './messages.ts';
import type { AppliedSlaRecord, SlaEventRecord } from './sla.ts';

// Stored conversation record (docs/chatwoot.md#conversation-json fields, snake_case). `id` is the per-account display
// id. Timestamps are Unix seconds, except `updated_at`, which keeps its fraction as Chatwoot shows it.

export const STATUSES = ['open', 'resolved', 'pending', 'snoozed'] as const;
export type ConversationStatus = (typeof STATUSES)[number];

export const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];

export interface ConversationRecord {
  id: number;
  account_id: number;
  inbox_id: number;
  contact_id: number;
  /** The contact inbox the conversation runs on. */
  source_id: string;
  /** The contact inbox's identity flag when the conversation started (`meta.hmac_verified`). */
  hmac_verified: boolean | null;
  uuid: string;
  status: ConversationStatus;
  assignee_id: number | null;
  assignee_agent_bot_id: number | null;
  team_id: number | null;
  priority: Priority | null;
  snoozed_until: number | null;
  labels: string[];
  custom_attributes: Record<string, unknown>;
  additional_attributes: Record<string, unknown>;
  agent_last_seen_at: number | null;
  assignee_last_seen_at: number | null;
  contact_last_seen_at: number | null;
  first_reply_created_at: number | null;
  waiting_since: number | null;
  /** The SLA policy applied to it (docs/sla.md); absent on conversations that never had one. */
  sla_policy_id?: number | null;
  /**
   * A copy of its applied SLA as the conversation's JSON shows it (`applied_sla`, `sla_events`), kept by the SLA
   * stage (docs/sla.md#the-conversations-json), so that a page of conversations reads no applied SLA; null or absent
   * without one.
   */
  applied_sla?: AppliedSlaCopy | null;
  /** Time of the last incoming message (WhatsApp's 24-hour reply window, `can_reply`). */
  last_incoming_at: number | null;
  /** Incoming messages since `agent_last_seen_at` (shown capped at 10). */
  unread_count: number;
  last_activity_at: number;
  /** Denormalized so that a list page is one read: the last message of any kind, and the last non-activity one. */
  last_message: MessageRecord | null;
  last_non_activity_message: MessageRecord | null;
  created_at: number;
  updated_at: number;
  /** Optimistic concurrency: every write conditions on it and increments it. */
  version: number;
  /** Who made the latest change (for the event pipeline). */
  updated_by: Performer | null;
}

/** What the conversation item keeps of its applied SLA: the shown fields, the misses without their bookkeeping. */
export type AppliedSlaCopy = Pick<AppliedSlaRecord, 'id' | 'sla_policy_id' | 'sla_status' | 'created_at' | 'updated_at'> & {
  sla_events: Omit<SlaEventRecord, 'waiting_since'>[];
};

/**
 * Who acts on a conversation: a user or agent bot of the account interface, or (public interface)
 * the conversation's contact.
 */
export type ConversationActor =
  | Actor
  | { type: 'contact'; contactId: number }
  /** An automation rule's actions (events pipeline). */
  | { type: 'automation_rule'; ruleId: number }
  /** A campaign's message without a sender (Chatwoot's MessageBuilder with no user: no sender). */
  | { type: 'campaign'; campaignId: number }
  /**
   * The inbox itself, with no sender: a channel's copy of a message the business sent outside the service
   * (docs/channels.md), and the inbox's greeting and out-of-office messages (docs/chatwoot.md#greeting-and-out-of-office).
   */
  | { type: 'channel'; inboxId: number };

export function performerOf(a: ConversationActor): Performer {
  switch (a.type) {
    case 'user':
      return { type: 'user', id: a.user.id };
    case 'agent_bot':
      return { type: 'agent_bot', id: a.bot.id };
    case 'contact':
      return { type: 'contact', id: a.contactId };
    case 'automation_rule':
      return { type: 'automation_rule', id: a.ruleId };
    case 'campaign':
      return { type: 'campaign', id: a.campaignId };
    case 'channel':
      return { type: 'channel', id: a.inboxId };
  }
}
