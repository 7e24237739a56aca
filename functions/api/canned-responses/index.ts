import { apiHandler } from '#shared/http/handler.ts';
import { listCannedResponses } from '#shared/domain/canned-responses/service.ts';
import { SearchQuery } from '#shared/http/query-docs.ts';

export const handler = apiHandler({
  query: SearchQuery,
  access: 'member',
  run: ({ account, query }) => listCannedResponses(account.id, query.search),
});
