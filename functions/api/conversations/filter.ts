import { apiHandler } from '#shared/http/handler.ts';
import { filterConversations } from '#shared/domain/filters/service.ts';

export const handler = apiHandler({ access: 'member', run: ({ account, actor, body }) => filterConversations(account, actor, body) });
