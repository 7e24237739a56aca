import { apiHandler } from '#shared/http/handler.ts';
import { listAccountBots } from '#shared/domain/agent-bots/service.ts';

export const handler = apiHandler({ access: 'member', run: ({ account, actor }) => listAccountBots(account.id, actor) });
