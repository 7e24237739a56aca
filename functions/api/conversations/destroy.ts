import { apiHandler, intParam } from '#shared/http/handler.ts';
import { destroyConversation } from '#shared/domain/conversations/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => destroyConversation(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation')),
});
