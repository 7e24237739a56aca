import { apiHandler } from '#shared/http/handler.ts';
import { labelsOf, searchConversations } from '#shared/domain/conversations/finder.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, actor, query }) => searchConversations(account, actor, { ...query, labels: labelsOf(query) }),
});
