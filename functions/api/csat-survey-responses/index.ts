import { apiHandler } from '#shared/http/handler.ts';
import { listSurveyResponses } from '#shared/domain/csat/service.ts';
import { CsatQuery } from '#shared/domain/csat/schemas.ts';

export const handler = apiHandler({
  access: 'administrator',
  query: CsatQuery,
  run: ({ account, query }) => listSurveyResponses(account, query),
});
