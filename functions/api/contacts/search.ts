import { apiHandler } from '#shared/http/handler.ts';
import { searchContacts } from '#shared/domain/contacts/listing.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, query }) => searchContacts(account.id, query),
});
