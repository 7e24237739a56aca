import { apiHandler } from '#shared/http/handler.ts';
import { searchMessagesResult } from '#shared/domain/search/service.ts';

export const handler = apiHandler({ access: 'member', run: ({ account, actor, query }) => searchMessagesResult(account, actor, query) });
