import { apiHandler, intParam } from '#shared/http/handler.ts';
import { markUnread } from '#shared/domain/notifications/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => markUnread(ctx.account, ctx.actor, intParam(ctx, 'id', 'Notification')),
});
