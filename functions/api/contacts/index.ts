import { apiHandler } from '#shared/http/handler.ts';
import { listContacts } from '#shared/domain/contacts/listing.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, query }) => listContacts(account.id, query),
});
