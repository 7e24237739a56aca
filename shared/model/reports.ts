import type { Figures } from './report-buckets.ts';

export const REPORTING_EVENT_NAMES = [
  'first_response',
  'reply_time',
  'conversation_resolved',
  'conversation_opened',
  'conversation_bot_handoff',
  'conversation_bot_resolved',
] as const;
export type ReportingEventName = (typeof REPORTING_EVENT_NAMES)[number];

/** Chatwoot's reporting_events row; times are unix seconds, `conversation_id` the display id. */
export interface ReportingEventRecord {
  id: number;
  name: ReportingEventName;
  value: number;
  value_in_business_hours: number;
  account_id: number;
  inbox_id: number;
  user_id: number | null;
  conversation_id: number;
  event_start_time: number;
  event_end_time: number;
  created_at: number;
  updated_at: number;
}

/** What one fact adds to one series at one instant (the bucket follows from `at`). */
export interface Contribution {
  series: string;
  at: number;
  figures: Figures;
}

/**
 * What one pipeline event added to the aggregates, stored once (its key is the event's id, so a
 * redelivered event finds it and adds nothing). The rebuild sums every fact again.
 */
export interface ReportFact {
  id: string;
  account_id: number;
  conversation_id: number | null;
  contributions: Contribution[];
  created_at: number;
  /** 'deletion': the negation of a deleted conversation's facts (its figures leave the aggregates). */
  kind?: 'deletion';
}

/** Per-conversation memory the listener needs (Chatwoot queries its reporting_events for these). */
export interface ConversationReportState {
  account_id: number;
  conversation_id: number;
  bot_handoff_at: number | null;
  last_resolved_at: number | null;
}
