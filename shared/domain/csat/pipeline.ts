import { getAccount } from '#shared/db/repositories/identity.ts';
import { claimSurvey, getSurvey, removeSurvey, saveResponse, setSurveyMessage } from '#shared/db/repositories/csat.ts';
import { recordFact } from '#shared/db/repositories/report-logs.ts';
import { log } from '#shared/log.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { CsatResponseRecord, CsatSurveyRecord } from '#shared/model/csat.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import type { Contribution } from '#shared/model/reports.ts';
import type { Figures } from '#shared/model/report-buckets.ts';
import { now } from '#shared/model/time.ts';
import type { DomainEvent } from '../events/domain-events.ts';
import type { ConversationContext } from '../events/payloads.ts';
import { canReply } from '../conversations/view.ts';
import { mutate, quietly } from '../conversations/mutation.ts';
import { seriesOf } from '../reports/pipeline.ts';
import { answerOf, surveyContent, surveyLink } from './survey.ts';

// The CSAT stage of the events pipeline (docs/csat.md), as Chatwoot's CsatSurveyService and its
// CsatSurveys::ResponseBuilder: a resolution in an inbox with `csat_survey_enabled` sends the survey (an
// `input_csat` template message, once per conversation); the contact's answer (the message's
// `submitted_values.csat_survey_response`, set by the widget or the survey page) becomes the conversation's
// response item and the rating figures of the reports' aggregates.

/**
 * Sends the survey of a resolved conversation when its inbox asks for one, at most once per conversation (the
 * survey item is claimed first; a redelivery of the claiming event finishes a send it began). Outside a channel's
 * reply window the conversation gets Chatwoot's activity note instead.
 */
async function sendSurvey(event: DomainEvent, c: ConversationRecord, inbox: InboxRecord | undefined): Promise<void> {
  if (c.status !== 'resolved' || !inbox?.csat_survey_enabled) return;
  const at = now();
  const claim: CsatSurveyRecord = {
    account_id: c.account_id,
    conversation_id: c.id,
    inbox_id: c.inbox_id,
    uuid: c.uuid,
    event_id: event.id,
    message_id: null,
    sent_at: at,
  };
  const taken = await claimSurvey(claim);
  if (taken && (taken.event_id !== event.id || taken.message_id != null)) return;
  const account = await getAccount(c.account_id);
  if (!account) return;
  if (!canReply(c, inbox, at)) {
    const { activityMessage } = await import('../messages/build.ts');
    const note = await activityMessage(c, 'CSAT survey not sent due to outgoing message restrictions', null);
    await mutate(c, (cur) => ({ next: quietly(cur, {}), messages: [note], result: undefined }));
    return;
  }
  // Loaded with the first survey sent (a dynamic import), as the templates hook does.
  const { addMessage } = await import('../messages/service.ts');
  const { message } = await addMessage(account, { type: 'channel', inboxId: inbox.id }, c, {
    content: surveyContent(inbox, surveyLink(c.uuid)),
    content_type: 'input_csat',
    message_type: 'template',
    content_attributes: {
      display_type: typeof inbox.csat_config?.display_type === 'string' ? inbox.csat_config.display_type : 'emoji',
      // Captured now: by the time the contact answers, the conversation may have no assignee (Chatwoot #14872).
      assigned_agent_id: c.assignee_id,
    },
  });
  await setSurveyMessage(c.account_id, c.id, message.id);
  log.info('csat survey sent', { eventId: event.id, conversationId: c.id, messageId: message.id });
}

/**
 * Records the contact's answer to the survey message: the rating figures move (a first answer adds one to its
 * rating at the time of the answer; a changed rating moves from the old one to the new one at that same time),
 * then the response item and the survey's memory are written. The figures are a fact keyed by the event (a
 * redelivery adds nothing), written before the items, so a redelivery after a failure computes the same figures.
 */
async function recordResponse(event: DomainEvent, m: MessageRecord, ctx: ConversationContext | undefined): Promise<void> {
  const answer = answerOf(m);
  if (!answer) return;
  const survey = await getSurvey(m.account_id, m.conversation_id);
  // A CSAT message an agent or bot posted by hand is no survey of this conversation's resolution.
  if (!survey || survey.message_id !== m.id) return;
  if (survey.rating === answer.rating && (survey.feedback_message ?? null) === answer.feedback_message) return;
  const c = ctx?.conversation;
  const agent = typeof m.content_attributes.assigned_agent_id === 'number' ? m.content_attributes.assigned_agent_id : null;
  const createdAt = survey.responded_at ?? Math.floor(m.updated_at ?? now());
  // The first answer fixes the response's team and series (a later one moves figures within them, as it keeps the
  // response's time).
  const first = survey.responded_at == null;
  const teamId = first ? (c?.team_id ?? null) : (survey.team_id ?? null);
  const series =
    first || !survey.series ? seriesOf({ inbox_id: m.inbox_id, team_id: teamId, labels: c?.labels ?? [] }, agent) : survey.series;
  if (survey.rating !== answer.rating) {
    const figures: Figures = { [`c${answer.rating}`]: 1 };
    if (survey.rating) figures[`c${survey.rating}` as 'c1'] = -1;
    const contributions: Contribution[] = series.map((s) => ({ series: s, at: createdAt, figures }));
    await recordFact({
      fact: { id: event.id, account_id: m.account_id, conversation_id: m.conversation_id, contributions, created_at: event.at },
    });
  }
  const response: CsatResponseRecord = {
    id: m.id,
    account_id: m.account_id,
    message_id: m.id,
    conversation_id: m.conversation_id,
    inbox_id: m.inbox_id,
    team_id: teamId,
    contact_id: c?.contact_id ?? 0,
    assigned_agent_id: agent,
    rating: answer.rating,
    feedback_message: answer.feedback_message,
    created_at: createdAt,
    updated_at: Math.floor(m.updated_at ?? now()),
  };
  await saveResponse(survey, response, series);
}

/** The CSAT stage: runs for every dispatched event; most are neither a resolution nor a survey's answer. */
export async function runCsat(event: DomainEvent, ctx: ConversationContext | undefined, inbox: InboxRecord | undefined) {
  if (event.name === 'conversation_resolved' && event.conversation) {
    await sendSurvey(event, ctx?.conversation ?? event.conversation, inbox);
  } else if (event.name === 'conversation_deleted' && event.conversation) {
    // Chatwoot destroys a conversation's responses with it (its figures leave with the conversation's facts).
    const survey = await getSurvey(event.conversation.account_id, event.conversation.id);
    if (survey) await removeSurvey(survey);
  } else if (event.name === 'message_updated' && event.message?.content_type === 'input_csat' && event.message.message_type === 3) {
    await recordResponse(event, event.message, ctx);
  }
}
