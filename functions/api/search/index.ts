import { apiHandler } from '#shared/http/handler.ts';
import { searchAll } from '#shared/domain/search/service.ts';

export const handler = apiHandler({ access: 'member', run: ({ account, actor, query }) => searchAll(account, actor, query) });
