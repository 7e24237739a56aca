import { apiHandler } from '#shared/http/handler.ts';
import { createCategory } from '#shared/domain/help-center/service.ts';
import { NewCategorySchema } from '#shared/domain/help-center/category-schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(NewCategorySchema),
  rootKey: 'category',
  run: ({ account, params, body }) => createCategory(account.id, params.id, body),
});
