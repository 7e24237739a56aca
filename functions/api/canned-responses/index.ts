import { apiHandler } from '#shared/http/handler.ts';
import { listCannedResponses } from '#shared/domain/canned-responses/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, query }) => listCannedResponses(account.id, query.search),
});
