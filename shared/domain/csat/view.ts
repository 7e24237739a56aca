import type { ContactRecord } from '#shared/model/contacts.ts';
import type { CsatResponseRecord } from '#shared/model/csat.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import { contactJson, inboxAvatarUrl } from '../contacts/view.ts';
import { answerOf, surveyPrompt } from './survey.ts';

// Chatwoot's CSAT JSON: the public survey (`public/api/v1/models/_csat_survey`) and a response
// (`api/v1/models/_csat_survey_response`).

/** The survey as its page reads it: `csat_survey_response` is null until answered. */
export function surveyJson(m: MessageRecord, inbox: InboxRecord | undefined, locale: string) {
  return {
    id: m.id,
    csat_survey_response: answerOf(m) ?? null,
    display_type: typeof m.content_attributes.display_type === 'string' ? m.content_attributes.display_type : 'emoji',
    content: surveyPrompt(inbox),
    inbox_avatar_url: inbox ? inboxAvatarUrl(inbox) : '',
    inbox_name: inbox?.name ?? '',
    locale,
    conversation_id: m.conversation_id,
    created_at: m.created_at,
  };
}

export function responseJson(r: CsatResponseRecord, contact: ContactRecord | undefined, agent: unknown) {
  return {
    id: r.id,
    rating: r.rating,
    feedback_message: r.feedback_message,
    account_id: r.account_id,
    message_id: r.message_id,
    ...(contact ? { contact: contactJson(contact) } : {}),
    conversation_id: r.conversation_id,
    ...(agent ? { assigned_agent: agent } : {}),
    created_at: r.created_at,
  };
}
