import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showArticle } from '#shared/domain/help-center/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => showArticle(ctx.account.id, ctx.params.id, intParam(ctx, 'article_id', 'Article')),
});
