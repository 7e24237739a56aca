import { apiHandler, intParam } from '#shared/http/handler.ts';
import { translateMessage } from '#shared/domain/messages/service.ts';
import { TranslateSchema } from '#shared/domain/messages/change-schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(TranslateSchema),
  run: (ctx) =>
    translateMessage(
      ctx.account,
      ctx.actor,
      intParam(ctx, 'conversation_id', 'Conversation'),
      intParam(ctx, 'message_id', 'Message'),
      ctx.body,
    ),
});
