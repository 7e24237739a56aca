import { publicHandler } from '#shared/http/handler.ts';
import { answerSurvey } from '#shared/domain/csat/service.ts';
import { CsatAnswerSchema } from '#shared/domain/csat/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(CsatAnswerSchema),
  run: ({ params, body }) => answerSurvey(params.conversation_uuid, body),
});
