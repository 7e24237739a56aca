import { apiHandler, intParam } from '#shared/http/handler.ts';
import { muteConversation } from '#shared/domain/conversations/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => muteConversation(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation')),
});
