import { apiHandler } from '../../../shared/http/handler.ts';
import { listContacts } from '../../../shared/domain/contacts/service.ts';

export const handler = apiHandler({ access: 'member', run: ({ account, query }) => listContacts(account.id, query) });
