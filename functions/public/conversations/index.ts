import { publicHandler } from '#shared/http/handler.ts';
import { listPublicConversations } from '#shared/domain/public/service.ts';

export const handler = publicHandler({
  run: ({ params }) => listPublicConversations(params.inbox_identifier, params.contact_identifier),
});
