import { publicHandler } from '#shared/http/handler.ts';
import { showPublicContact } from '#shared/domain/public/service.ts';
import { ContactShowQuery } from '#shared/http/query-docs.ts';

export const handler = publicHandler({
  query: ContactShowQuery,
  run: ({ params, query }) => showPublicContact(params.inbox_identifier, params.contact_identifier, query),
});
