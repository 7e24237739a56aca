import { apiHandler, intParam } from '#shared/http/handler.ts';
import { assign } from '#shared/domain/conversations/service.ts';
import { AssignmentSchema } from '#shared/domain/conversations/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  bots: true,
  body: bodyOf(AssignmentSchema),
  run: (ctx) => assign(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.body),
});
