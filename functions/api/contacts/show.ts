import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showContact } from '#shared/domain/contacts/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => showContact(ctx.account.id, intParam(ctx, 'id', 'Contact'), ctx.query),
});
