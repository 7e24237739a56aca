import { apiHandler } from '#shared/http/handler.ts';
import { labelsOf, searchConversations } from '#shared/domain/conversations/finder.ts';
import { ConversationListQuery } from '#shared/http/query-docs.ts';

export const handler = apiHandler({
  query: ConversationListQuery,
  access: 'member',
  run: ({ account, actor, query }) => searchConversations(account, actor, { ...query, labels: labelsOf(query) }),
});
