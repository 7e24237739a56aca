import { apiHandler } from '#shared/http/handler.ts';
import { searchContacts } from '#shared/domain/contacts/listing.ts';
import { ContactSearchQuery } from '#shared/http/query-docs.ts';

export const handler = apiHandler({
  query: ContactSearchQuery,
  access: 'member',
  run: ({ account, query }) => searchContacts(account.id, query),
});
