import { apiHandler } from '#shared/http/handler.ts';
import { createArticle } from '#shared/domain/help-center/service.ts';
import { NewArticleSchema } from '#shared/domain/help-center/article-schemas.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: NewArticleSchema,
  rootKey: 'article',
  run: ({ account, params, body }) => createArticle(account.id, params.id, body),
});
