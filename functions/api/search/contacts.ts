import { apiHandler } from '#shared/http/handler.ts';
import { searchContactsResult } from '#shared/domain/search/service.ts';

export const handler = apiHandler({ access: 'member', run: ({ account, query }) => searchContactsResult(account, query) });
