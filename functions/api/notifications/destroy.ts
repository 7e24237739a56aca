import { apiHandler, intParam } from '#shared/http/handler.ts';
import { destroyNotification } from '#shared/domain/notifications/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => destroyNotification(ctx.account, ctx.actor, intParam(ctx, 'id', 'Notification')),
});
