import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteInboxAvatar } from '#shared/domain/inboxes/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => deleteInboxAvatar(ctx.account, intParam(ctx, 'id', 'Inbox')),
});
