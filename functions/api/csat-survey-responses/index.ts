import { apiHandler } from '#shared/http/handler.ts';
import { listSurveyResponses } from '#shared/domain/csat/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: ({ account, query }) => listSurveyResponses(account, query),
});
