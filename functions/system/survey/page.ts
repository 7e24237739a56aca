import { surveyPage } from '#shared/http/survey-page.ts';

// `GET /survey/responses/{conversation_uuid}`: the CSAT survey page a contact opens from the survey's link.
export const handler = surveyPage;
