import { apiHandler, intParam } from '#shared/http/handler.ts';
import { markRead } from '#shared/domain/notifications/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => markRead(ctx.account, ctx.actor, intParam(ctx, 'id', 'Notification')),
});
