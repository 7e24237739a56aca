import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showCategory } from '#shared/domain/help-center/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => showCategory(ctx.account.id, ctx.params.id, intParam(ctx, 'category_id', 'Category')),
});
