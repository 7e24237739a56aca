import { apiHandler } from '#shared/http/handler.ts';
import { searchArticles } from '#shared/domain/help-center/service.ts';
import { ArticleSearchQuery } from '#shared/http/query-docs.ts';

export const handler = apiHandler({
  access: 'member',
  query: ArticleSearchQuery,
  run: ({ account, query }) => searchArticles(account.id, query),
});
