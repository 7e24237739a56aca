import { publicHandler } from '#shared/http/handler.ts';
import { showPublicContact } from '#shared/domain/public/service.ts';

export const handler = publicHandler({
  run: ({ params, query }) => showPublicContact(params.inbox_identifier, params.contact_identifier, query),
});
