import { apiHandler } from '#shared/http/handler.ts';
import { csvReply } from '#shared/http/response.ts';
import { downloadMissedSlas } from '#shared/domain/sla/applied.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: async ({ account, query }) => csvReply(await downloadMissedSlas(account, query)),
});
