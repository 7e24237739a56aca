import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteCategory } from '#shared/domain/help-center/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => deleteCategory(ctx.account.id, ctx.params.id, intParam(ctx, 'category_id', 'Category')),
});
