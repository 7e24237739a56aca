import { apiHandler, intParam } from '#shared/http/handler.ts';
import { markUnread } from '#shared/domain/conversations/service.ts';

export const handler = apiHandler({
  emptyStatus: 204,
  access: 'member',
  run: (ctx) => markUnread(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation')),
});
