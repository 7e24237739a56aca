// CSAT records (docs/csat.md): the survey a resolution sent in a conversation, and the contact's answer as the
// responses list reads it. Timestamps are Unix seconds.

/** The one survey of a conversation (Chatwoot sends at most one): found by the conversation's uuid. */
export interface CsatSurveyRecord {
  account_id: number;
  /** The conversation's display id. */
  conversation_id: number;
  inbox_id: number;
  uuid: string;
  /** The pipeline event that claimed the survey (a redelivery of it may finish what it began). */
  event_id: string;
  /** The `input_csat` message, once written. */
  message_id: number | null;
  sent_at: number;
  /** The answer the reports counted last (rating and when it was first given), kept by the pipeline. */
  rating?: number | null;
  feedback_message?: string | null;
  responded_at?: number | null;
  /** The report series the rating figures went to at the first answer (a later answer moves them there). */
  series?: string[];
  /** The conversation's team at the first answer (the responses list filters on it). */
  team_id?: number | null;
}

/** One answered survey, as Chatwoot's `csat_survey_responses` row: listed by the time of its first answer. */
export interface CsatResponseRecord {
  /** The survey message's id (one response per survey message, as Chatwoot's unique message_id). */
  id: number;
  account_id: number;
  message_id: number;
  /** The conversation's display id. */
  conversation_id: number;
  inbox_id: number;
  team_id: number | null;
  contact_id: number;
  assigned_agent_id: number | null;
  rating: number;
  feedback_message: string | null;
  created_at: number;
  updated_at: number;
}
