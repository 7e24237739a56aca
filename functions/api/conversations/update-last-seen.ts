import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateLastSeen } from '#shared/domain/conversations/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => updateLastSeen(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation')),
});
