import { apiHandler } from '#shared/http/handler.ts';
import { labelsOf, listConversations } from '#shared/domain/conversations/finder.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, actor, query }) => listConversations(account, actor, { ...query, labels: labelsOf(query) }),
});
