import { apiHandler, intParam } from '#shared/http/handler.ts';
import { toggleStatus } from '#shared/domain/conversations/service.ts';
import { ToggleStatusSchema } from '#shared/domain/conversations/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  bots: true,
  body: bodyOf(ToggleStatusSchema),
  run: (ctx) => toggleStatus(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.body),
});
