import { apiHandler, intParam } from '#shared/http/handler.ts';
import { listConversationEvents } from '#shared/domain/reports/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => listConversationEvents(ctx.account, intParam(ctx, 'conversation_id', 'Conversation')),
});
