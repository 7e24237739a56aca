import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showContact } from '#shared/domain/contacts/service.ts';
import { ContactShowQuery } from '#shared/http/query-docs.ts';

export const handler = apiHandler({
  query: ContactShowQuery,
  access: 'member',
  run: (ctx) => showContact(ctx.account.id, intParam(ctx, 'id', 'Contact'), ctx.query),
});
