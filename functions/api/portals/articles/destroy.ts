import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteArticle } from '#shared/domain/help-center/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => deleteArticle(ctx.account.id, ctx.params.id, intParam(ctx, 'article_id', 'Article')),
});
