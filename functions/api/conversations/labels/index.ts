import { apiHandler, intParam } from '#shared/http/handler.ts';
import { listLabels } from '#shared/domain/conversations/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => listLabels(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation')),
});
