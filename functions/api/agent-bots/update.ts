import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateAccountBot } from '#shared/domain/agent-bots/service.ts';
import { AccountAgentBotUpdateSchema } from '#shared/domain/agent-bots/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(AccountAgentBotUpdateSchema),
  rootKey: 'agent_bot',
  run: (ctx) => updateAccountBot(ctx.account.id, intParam(ctx, 'id', 'Agent bot'), ctx.body),
});
