import { apiHandler } from '#shared/http/handler.ts';
import { searchArticles } from '#shared/domain/help-center/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, query }) => searchArticles(account.id, query),
});
