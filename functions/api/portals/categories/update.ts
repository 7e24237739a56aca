import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateCategory } from '#shared/domain/help-center/service.ts';
import { CategoryUpdateSchema } from '#shared/domain/help-center/category-schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(CategoryUpdateSchema),
  rootKey: 'category',
  run: (ctx) => updateCategory(ctx.account.id, ctx.params.id, intParam(ctx, 'category_id', 'Category'), ctx.body),
});
