import { apiHandler } from '#shared/http/handler.ts';
import { listPortals } from '#shared/domain/help-center/service.ts';
import { PageQuery } from '#shared/http/query-docs.ts';

export const handler = apiHandler({
  access: 'member',
  query: PageQuery,
  run: ({ account, actor, query }) => listPortals(account.id, actor, query),
});
