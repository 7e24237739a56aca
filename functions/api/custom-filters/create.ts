import { apiHandler } from '#shared/http/handler.ts';
import { createCustomFilter } from '#shared/domain/custom-filters/service.ts';
import { NewCustomFilterSchema } from '#shared/domain/custom-filters/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(NewCustomFilterSchema),
  rootKey: 'custom_filter',
  run: ({ account, actor, body }) => createCustomFilter(account.id, actor, body),
});
