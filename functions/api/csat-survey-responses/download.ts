import { apiHandler } from '#shared/http/handler.ts';
import { csvReply } from '#shared/http/response.ts';
import { downloadSurveyResponses } from '#shared/domain/csat/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: async ({ account, query }) => csvReply(await downloadSurveyResponses(account, query)),
});
