import { apiHandler } from '#shared/http/handler.ts';
import { conversationMeta, labelsOf } from '#shared/domain/conversations/finder.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account, actor, query }) => conversationMeta(account, actor, { ...query, labels: labelsOf(query) }),
});
