import { apiHandler, intParam } from '#shared/http/handler.ts';
import { listParticipants } from '#shared/domain/participants/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => listParticipants(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation')),
});
