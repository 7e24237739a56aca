import { apiHandler } from '#shared/http/handler.ts';
import { listCategories } from '#shared/domain/help-center/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, params, query }) => listCategories(account.id, params.id, query),
});
