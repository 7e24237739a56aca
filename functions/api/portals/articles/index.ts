import { apiHandler } from '#shared/http/handler.ts';
import { listArticles } from '#shared/domain/help-center/service.ts';
import { ArticleListQuery } from '#shared/http/query-docs.ts';

export const handler = apiHandler({
  access: 'member',
  query: ArticleListQuery,
  run: ({ account, actor, params, query }) => listArticles(account.id, actor, params.id, query),
});
