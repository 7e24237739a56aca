import { apiHandler, intParam } from '#shared/http/handler.ts';
import { snooze } from '#shared/domain/notifications/service.ts';
import { SnoozeSchema } from '#shared/domain/notifications/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(SnoozeSchema),
  run: (ctx) => snooze(ctx.account, ctx.actor, intParam(ctx, 'id', 'Notification'), ctx.body.snoozed_until),
});
