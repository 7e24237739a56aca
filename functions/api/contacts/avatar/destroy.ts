import { apiHandler, intParam } from '#shared/http/handler.ts';
import { removeAvatar } from '#shared/domain/contacts/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => removeAvatar(ctx.account.id, intParam(ctx, 'id', 'Contact')),
});
