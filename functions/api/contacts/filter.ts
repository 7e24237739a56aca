import { apiHandler } from '#shared/http/handler.ts';
import { filterContacts } from '#shared/domain/filters/service.ts';

export const handler = apiHandler({ access: 'member', run: ({ account, body, query }) => filterContacts(account.id, body, query) });
