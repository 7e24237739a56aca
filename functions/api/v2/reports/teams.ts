import { csvReply } from '#shared/http/response.ts';
import { apiHandler } from '#shared/http/handler.ts';
import { csvReport } from '#shared/domain/reports/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: async ({ account, query }) => csvReply(await csvReport(account, 'teams', query)),
});
