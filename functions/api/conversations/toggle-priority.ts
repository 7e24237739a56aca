import { apiHandler, intParam } from '#shared/http/handler.ts';
import { togglePriority } from '#shared/domain/conversations/service.ts';
import { TogglePrioritySchema } from '#shared/domain/conversations/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  bots: true,
  body: bodyOf(TogglePrioritySchema),
  run: (ctx) => togglePriority(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.body.priority ?? null),
});
