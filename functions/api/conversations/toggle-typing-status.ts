import { apiHandler, intParam } from '#shared/http/handler.ts';
import { toggleTyping, TypingSchema } from '#shared/domain/conversations/typing.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(TypingSchema),
  run: (ctx) => toggleTyping(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.body),
});
