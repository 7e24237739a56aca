import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showConversation } from '#shared/domain/conversations/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => showConversation(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation')),
});
