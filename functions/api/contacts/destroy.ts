import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteContact } from '#shared/domain/contacts/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => deleteContact(ctx.account.id, intParam(ctx, 'id', 'Contact')),
});
