import { apiHandler, intParam } from '#shared/http/handler.ts';
import { destroyCustomAttributes } from '#shared/domain/contacts/service.ts';
import { DestroyCustomAttributesSchema } from '#shared/domain/contacts/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(DestroyCustomAttributesSchema),
  run: (ctx) => destroyCustomAttributes(ctx.account.id, intParam(ctx, 'id', 'Contact'), ctx.body),
});
