import { apiHandler } from '#shared/http/handler.ts';
import { listContacts } from '#shared/domain/contacts/listing.ts';
import { ContactListQuery } from '#shared/http/query-docs.ts';

export const handler = apiHandler({
  query: ContactListQuery,
  access: 'member',
  run: ({ account, query }) => listContacts(account.id, query),
});
