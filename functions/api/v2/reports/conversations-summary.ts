import { csvReply } from '#shared/http/response.ts';
import { apiHandler } from '#shared/http/handler.ts';
import { conversationsSummaryCsv } from '#shared/domain/reports/breakdowns.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: async ({ account, query }) => csvReply(await conversationsSummaryCsv(account, query)),
});
