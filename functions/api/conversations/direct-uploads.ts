import { apiHandler, intParam } from '#shared/http/handler.ts';
import { createConversationDirectUpload } from '#shared/domain/messages/service.ts';
import { DirectUploadSchema } from '#shared/domain/messages/change-schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  bots: true,
  body: bodyOf(DirectUploadSchema),
  run: (ctx) => createConversationDirectUpload(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.body),
});
