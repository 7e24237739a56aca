import { apiHandler } from '#shared/http/handler.ts';
import { createCategory } from '#shared/domain/help-center/service.ts';
import { NewCategorySchema } from '#shared/domain/help-center/category-schemas.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: NewCategorySchema,
  rootKey: 'category',
  run: ({ account, params, body }) => createCategory(account.id, params.id, body),
});
