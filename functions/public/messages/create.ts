import { intParam, publicHandler } from '#shared/http/handler.ts';
import { createPublicMessage } from '#shared/domain/public/service.ts';
import { PublicNewMessageSchema } from '#shared/domain/public/schemas.ts';

export const handler = publicHandler({
  body: PublicNewMessageSchema,
  rootKey: 'message',
  // `attachments[]` arrive as uploaded files.
  multipart: true,
  run: (ctx) =>
    createPublicMessage(
      ctx.params.inbox_identifier,
      ctx.params.contact_identifier,
      intParam(ctx, 'conversation_id', 'Conversation'),
      ctx.body,
    ),
});
