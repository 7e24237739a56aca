import { config } from '#shared/config.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { MessageRecord } from '#shared/model/messages.ts';

// The survey's words and its answer (docs/csat.md), shared by the pipeline that sends it and the views.

/** Chatwoot's `conversations.templates.csat_input_message_body`. */
export const CSAT_PROMPT = 'Please rate the conversation';

/** The survey page of a conversation (Chatwoot's `{FRONTEND_URL}/survey/responses/{uuid}`). */
export const surveyLink = (uuid: string) => `${config().frontendUrl}/survey/responses/${uuid}`;

const configured = (inbox: InboxRecord) => {
  const message = inbox.csat_config?.message;
  return typeof message === 'string' && message.trim() ? message : undefined;
};

/**
 * The survey's text: the inbox's `csat_config.message` or Chatwoot's prompt. A web widget shows its own rating
 * control; every other channel carries the survey page's link in the text (Chatwoot's Message#content for CSAT).
 */
export function surveyContent(inbox: InboxRecord, link: string): string {
  const message = configured(inbox);
  if (inbox.channel_type === 'Channel::WebWidget') return message ?? CSAT_PROMPT;
  return message ? `${message} ${link}` : `Please rate this conversation, ${link}`;
}

/** The prompt the survey page shows: the text without the link (what the inbox configured, or Chatwoot's prompt). */
export const surveyPrompt = (inbox: InboxRecord | undefined) => (inbox && configured(inbox)) ?? CSAT_PROMPT;

/** The rating and feedback a CSAT message holds, if answered. */
export function answerOf(m: MessageRecord): { rating: number; feedback_message: string | null } | undefined {
  const sv = m.content_attributes.submitted_values as
    | { csat_survey_response?: { rating?: unknown; feedback_message?: unknown } }
    | undefined;
  const r = sv && !Array.isArray(sv) ? sv.csat_survey_response : undefined;
  if (!r || typeof r.rating !== 'number' || r.rating < 1 || r.rating > 5) return undefined;
  return { rating: r.rating, feedback_message: typeof r.feedback_message === 'string' && r.feedback_message ? r.feedback_message : null };
}
