import { apiHandler, intParam } from '#shared/http/handler.ts';
import { toggleStatus } from '#shared/domain/conversations/service.ts';
import { ToggleStatusSchema } from '#shared/domain/conversations/schemas.ts';

export const handler = apiHandler({
  access: 'member',
  bots: true,
  body: ToggleStatusSchema,
  run: (ctx) => toggleStatus(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.body),
});
