import { apiHandler } from '#shared/http/handler.ts';
import { labelsOf, listConversations } from '#shared/domain/conversations/finder.ts';
import { ConversationListQuery } from '#shared/http/query-docs.ts';

export const handler = apiHandler({
  query: ConversationListQuery,
  access: 'member',
  run: ({ account, actor, query }) => listConversations(account, actor, { ...query, labels: labelsOf(query) }),
});
