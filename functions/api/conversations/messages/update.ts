import { apiHandler, intParam } from '#shared/http/handler.ts';
import { parseMultipart } from '#shared/http/multipart.ts';
import { updateMessageStatus } from '#shared/domain/messages/service.ts';
import { MessageUpdateSchema } from '#shared/domain/messages/change-schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(MessageUpdateSchema),
  rootKey: 'message',
  // Form posts like every other body (clients that send multipart everywhere).
  multipart: parseMultipart,
  run: (ctx) =>
    updateMessageStatus(
      ctx.account,
      ctx.actor,
      intParam(ctx, 'conversation_id', 'Conversation'),
      intParam(ctx, 'message_id', 'Message'),
      ctx.body,
    ),
});
