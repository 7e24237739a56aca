import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteAccountBot } from '#shared/domain/agent-bots/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => deleteAccountBot(ctx.account.id, intParam(ctx, 'id', 'Agent bot')),
});
