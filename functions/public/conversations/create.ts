import { publicHandler } from '#shared/http/handler.ts';
import { createPublicConversation } from '#shared/domain/public/service.ts';
import { PublicNewConversationSchema } from '#shared/domain/public/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(PublicNewConversationSchema),
  rootKey: 'conversation',
  run: ({ params, body }) => createPublicConversation(params.inbox_identifier, params.contact_identifier, body),
});
