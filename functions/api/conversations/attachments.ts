import { apiHandler, intParam } from '#shared/http/handler.ts';
import { conversationAttachments } from '#shared/domain/messages/attachments.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => conversationAttachments(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.query),
});
