import { apiHandler, intParam } from '#shared/http/handler.ts';
import { resetAccountBotToken } from '#shared/domain/agent-bots/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => resetAccountBotToken(ctx.account.id, intParam(ctx, 'id', 'Agent bot')),
});
