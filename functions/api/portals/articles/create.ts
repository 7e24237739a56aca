import { apiHandler } from '#shared/http/handler.ts';
import { createArticle } from '#shared/domain/help-center/service.ts';
import { NewArticleSchema } from '#shared/domain/help-center/article-schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(NewArticleSchema),
  rootKey: 'article',
  run: ({ account, params, body }) => createArticle(account.id, params.id, body),
});
