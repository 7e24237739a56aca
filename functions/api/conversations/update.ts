import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateConversation } from '#shared/domain/conversations/service.ts';
import { ConversationUpdateSchema } from '#shared/domain/conversations/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  bots: true,
  body: bodyOf(ConversationUpdateSchema),
  rootKey: 'conversation',
  run: (ctx) => updateConversation(ctx.account, ctx.actor, intParam(ctx, 'conversation_id', 'Conversation'), ctx.body),
});
