import { apiHandler } from '#shared/http/handler.ts';
import { listAgents } from '#shared/domain/agents/view.ts';

export const handler = apiHandler({
  access: 'member',
  run: ({ account }) => listAgents(account.id),
});
