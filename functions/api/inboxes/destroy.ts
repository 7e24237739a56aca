import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteInbox } from '#shared/domain/inboxes/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => deleteInbox(ctx.account, intParam(ctx, 'id', 'Inbox')),
});
