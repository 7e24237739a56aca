import { apiHandler } from '#shared/http/handler.ts';
import { reorderCategories } from '#shared/domain/help-center/service.ts';
import { ReorderSchema } from '#shared/domain/help-center/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(ReorderSchema),
  run: ({ account, params, body }) => reorderCategories(account.id, params.id, body),
});
