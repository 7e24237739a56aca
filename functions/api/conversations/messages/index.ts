import { apiHandler, intParam } from '#shared/http/handler.ts';
import { listConversationMessages } from '#shared/domain/messages/service.ts';
import { MessageListQuery } from '#shared/http/query-docs.ts';

export const handler = apiHandler({
  query: MessageListQuery,
  access: 'member',
  run: (ctx) => listConversationMessages(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.query),
});
