import { apiHandler, intParam } from '#shared/http/handler.ts';
import { unmuteConversation } from '#shared/domain/conversations/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => unmuteConversation(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation')),
});
