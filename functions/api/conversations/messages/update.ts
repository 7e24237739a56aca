import { apiHandler, intParam } from '../../../../shared/http/handler.ts';
import { updateMessageStatus } from '../../../../shared/domain/messages/service.ts';
import { MessageUpdateSchema } from '../../../../shared/domain/messages/schemas.ts';

export const handler = apiHandler({
  access: 'member',
  body: MessageUpdateSchema,
  rootKey: 'message',
  run: (ctx) =>
    updateMessageStatus(
      ctx.account,
      ctx.actor,
      intParam(ctx, 'conversation_id', 'Conversation'),
      intParam(ctx, 'message_id', 'Message'),
      ctx.body,
    ),
});
