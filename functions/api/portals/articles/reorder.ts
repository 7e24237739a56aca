import { apiHandler } from '#shared/http/handler.ts';
import { reorderArticles } from '#shared/domain/help-center/service.ts';
import { ReorderSchema } from '#shared/domain/help-center/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(ReorderSchema),
  run: ({ account, params, body }) => reorderArticles(account.id, params.id, body),
});
