import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteMessage } from '#shared/domain/messages/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) =>
    deleteMessage(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), intParam(ctx, 'message_id', 'Message')),
});
