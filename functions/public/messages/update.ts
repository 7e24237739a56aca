import { intParam, publicHandler } from '#shared/http/handler.ts';
import { submitPublicMessage } from '#shared/domain/public/service.ts';
import { SubmitSchema } from '#shared/domain/public/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(SubmitSchema),
  rootKey: 'message',
  run: (ctx) =>
    submitPublicMessage(
      ctx.params.inbox_identifier,
      ctx.params.contact_identifier,
      intParam(ctx, 'conversation_id', 'Conversation'),
      intParam(ctx, 'message_id', 'Message'),
      ctx.body,
    ),
});
