import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showInbox } from '#shared/domain/inboxes/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => showInbox(ctx.account, ctx.actor, intParam(ctx, 'id', 'Inbox')),
});
