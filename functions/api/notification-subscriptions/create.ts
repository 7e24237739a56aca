import { userHandler } from '#shared/http/handler.ts';
import { subscribe } from '#shared/domain/notifications/service.ts';
import { PushSubscriptionSchema } from '#shared/domain/notifications/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = userHandler({
  body: bodyOf(PushSubscriptionSchema),
  rootKey: 'notification_subscription',
  run: ({ user, body }) => subscribe(user.id, body),
});
