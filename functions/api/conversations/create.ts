import { apiHandler } from '#shared/http/handler.ts';
import { createConversation } from '#shared/domain/conversations/service.ts';
import { NewConversationSchema } from '#shared/domain/conversations/create-schema.ts';

export const handler = apiHandler({
  access: 'member',
  bots: true,
  body: NewConversationSchema,
  rootKey: 'conversation',
  run: ({ account, actor, body }) => createConversation(account, actor, body),
});
