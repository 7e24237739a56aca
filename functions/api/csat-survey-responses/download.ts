import { apiHandler } from '#shared/http/handler.ts';
import { csvReply } from '#shared/http/response.ts';
import { downloadSurveyResponses } from '#shared/domain/csat/service.ts';
import { CsatQuery } from '#shared/domain/csat/schemas.ts';

export const handler = apiHandler({
  access: 'administrator',
  query: CsatQuery,
  run: async ({ account, query }) => csvReply(await downloadSurveyResponses(account, query)),
});
