import { apiHandler, intParam } from '#shared/http/handler.ts';
import { contactLabels } from '#shared/domain/contacts/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => contactLabels(ctx.account.id, intParam(ctx, 'id', 'Contact')),
});
