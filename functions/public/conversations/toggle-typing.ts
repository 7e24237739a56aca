import { intParam, publicHandler } from '#shared/http/handler.ts';
import { togglePublicTyping } from '#shared/domain/public/service.ts';
import { TypingSchema } from '#shared/domain/public/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(TypingSchema),
  run: (ctx) =>
    togglePublicTyping(
      ctx.params.inbox_identifier,
      ctx.params.contact_identifier,
      intParam(ctx, 'conversation_id', 'Conversation'),
      ctx.body.typing_status,
    ),
});
