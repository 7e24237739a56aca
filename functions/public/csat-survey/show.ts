import { publicHandler } from '#shared/http/handler.ts';
import { showSurvey } from '#shared/domain/csat/service.ts';

export const handler = publicHandler({ run: ({ params }) => showSurvey(params.conversation_uuid) });
