import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateArticle } from '#shared/domain/help-center/service.ts';
import { ArticleUpdateSchema } from '#shared/domain/help-center/article-schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(ArticleUpdateSchema),
  rootKey: 'article',
  run: (ctx) => updateArticle(ctx.account.id, ctx.params.id, intParam(ctx, 'article_id', 'Article'), ctx.body),
});
