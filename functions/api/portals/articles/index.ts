import { apiHandler } from '#shared/http/handler.ts';
import { listArticles } from '#shared/domain/help-center/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, actor, params, query }) => listArticles(account.id, actor, params.id, query),
});
