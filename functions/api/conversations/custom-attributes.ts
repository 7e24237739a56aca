import { apiHandler, intParam } from '#shared/http/handler.ts';
import { setCustomAttributes } from '#shared/domain/conversations/service.ts';
import { CustomAttributesSchema } from '#shared/domain/conversations/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  bots: true,
  body: bodyOf(CustomAttributesSchema),
  run: (ctx) =>
    setCustomAttributes(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.body.custom_attributes ?? {}),
});
