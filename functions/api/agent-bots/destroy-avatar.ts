import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteAccountBotAvatar } from '#shared/domain/agent-bots/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => deleteAccountBotAvatar(ctx.account.id, intParam(ctx, 'id', 'Agent bot')),
});
