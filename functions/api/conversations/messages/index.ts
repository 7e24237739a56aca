import { apiHandler, intParam } from '#shared/http/handler.ts';
import { listConversationMessages } from '#shared/domain/messages/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => listConversationMessages(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.query),
});
