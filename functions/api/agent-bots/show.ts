import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showAccountBot } from '#shared/domain/agent-bots/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => showAccountBot(ctx.account.id, ctx.actor, intParam(ctx, 'id', 'Agent bot')),
});
