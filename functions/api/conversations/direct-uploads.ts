import { apiHandler, intParam } from '#shared/http/handler.ts';
import { createConversationDirectUpload } from '#shared/domain/messages/service.ts';
import { DirectUploadSchema } from '#shared/domain/messages/change-schemas.ts';

export const handler = apiHandler({
  access: 'member',
  bots: true,
  body: DirectUploadSchema,
  run: (ctx) => createConversationDirectUpload(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.body),
});
