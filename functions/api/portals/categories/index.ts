import { apiHandler } from '#shared/http/handler.ts';
import { listCategories } from '#shared/domain/help-center/service.ts';
import { CategoryListQuery } from '#shared/http/query-docs.ts';

export const handler = apiHandler({
  access: 'member',
  query: CategoryListQuery,
  run: ({ account, params, query }) => listCategories(account.id, params.id, query),
});
