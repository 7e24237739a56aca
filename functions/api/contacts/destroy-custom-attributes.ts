import { apiHandler, intParam } from '#shared/http/handler.ts';
import { destroyCustomAttributes } from '#shared/domain/contacts/service.ts';
import { DestroyCustomAttributesSchema } from '#shared/domain/contacts/schemas.ts';

export const handler = apiHandler({
  access: 'member',
  body: DestroyCustomAttributesSchema,
  run: (ctx) => destroyCustomAttributes(ctx.account.id, intParam(ctx, 'id', 'Contact'), ctx.body),
});
