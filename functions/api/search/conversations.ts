import { apiHandler } from '#shared/http/handler.ts';
import { searchConversationsResult } from '#shared/domain/search/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, actor, query }) => searchConversationsResult(account, actor, query),
});
