import { userHandler } from '#shared/http/handler.ts';
import { unsubscribe } from '#shared/domain/notifications/service.ts';
import { PushUnsubscribeSchema } from '#shared/domain/notifications/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = userHandler({ body: bodyOf(PushUnsubscribeSchema), run: ({ user, body }) => unsubscribe(user.id, body.push_token) });
