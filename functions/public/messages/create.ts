import { intParam, publicHandler } from '#shared/http/handler.ts';
import { parseMultipart } from '#shared/http/multipart.ts';
import { createPublicMessage } from '#shared/domain/public/service.ts';
import { PublicNewMessageSchema } from '#shared/domain/public/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(PublicNewMessageSchema),
  rootKey: 'message',
  // `attachments[]` arrive as uploaded files.
  multipart: parseMultipart,
  run: (ctx) =>
    createPublicMessage(
      ctx.params.inbox_identifier,
      ctx.params.contact_identifier,
      intParam(ctx, 'conversation_id', 'Conversation'),
      ctx.body,
    ),
});
