/** An account's SLA policy (Chatwoot's `sla_policies` row): thresholds in seconds, null when not set. */
export interface SlaPolicyRecord {
  id: number;
  account_id: number;
  name: string;
  description: string | null;
  first_response_time_threshold: number | null;
  next_response_time_threshold: number | null;
  resolution_time_threshold: number | null;
  only_during_business_hours: boolean;
  created_at: number;
  updated_at: number;
  version: number;
}

export const SLA_STATUSES = ['active', 'hit', 'missed', 'active_with_misses'] as const;
export type SlaStatus = (typeof SLA_STATUSES)[number];

/** Chatwoot's SLA event types: first response, next response, resolution. */
export type SlaEventType = 'frt' | 'nrt' | 'rt';

/** A miss (Chatwoot's `sla_events` row), kept on its applied SLA. */
export interface SlaEventRecord {
  id: number;
  event_type: SlaEventType;
  /** For `nrt`: the incoming message whose reply was late (Chatwoot's `meta.message_id`). */
  meta: { message_id?: number };
  /** For `nrt`: the wait it was for (each wait misses at most once). */
  waiting_since?: number;
  created_at: number;
}

/**
 * A policy applied to a conversation (Chatwoot's `applied_slas` row), in the conversation's partition; evaluated
 * against the policy as it is now, as Chatwoot does (docs/sla.md).
 */
export interface AppliedSlaRecord {
  id: number;
  account_id: number;
  conversation_id: number;
  inbox_id: number;
  sla_policy_id: number;
  sla_status: SlaStatus;
  sla_events: SlaEventRecord[];
  /** The deadlines ahead that have a wake-up scheduled, so that each is asked for once. */
  wakes: number[];
  created_at: number;
  updated_at: number;
  version: number;
  /**
   * The conversation's fields `applied_slas` filters and shows, as of its last change the SLA stage saw (absent on
   * applied SLAs stored before it was kept: their conversation is read instead).
   */
  conversation?: AppliedSlaConversation;
}

/** What `applied_slas` needs of an applied SLA's conversation, kept on the applied SLA by the pipeline's SLA stage. */
export interface AppliedSlaConversation {
  /** The conversation's policy: another one (or none) means this applied SLA no longer applies. */
  sla_policy_id: number | null;
  contact_id: number;
  assignee_id: number | null;
  team_id: number | null;
  labels: string[];
}

/** A scheduled wake-up of a conversation's applied SLA at a deadline (Unix seconds), the wake-up function's event. */
export interface Wakeup {
  account_id: number;
  conversation_id: number;
  at: number;
}
