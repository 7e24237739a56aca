import { apiHandler } from '#shared/http/handler.ts';
import { createConversation } from '#shared/domain/conversations/service.ts';
import { NewConversationSchema } from '#shared/domain/conversations/create-schema.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  bots: true,
  body: bodyOf(NewConversationSchema),
  rootKey: 'conversation',
  run: ({ account, actor, body }) => createConversation(account, actor, body),
});
