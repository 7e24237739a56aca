import { apiHandler } from '#shared/http/handler.ts';
import { createAccountBot } from '#shared/domain/agent-bots/service.ts';
import { NewAccountAgentBotSchema } from '#shared/domain/agent-bots/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(NewAccountAgentBotSchema),
  rootKey: 'agent_bot',
  run: ({ account, body }) => createAccountBot(account.id, body),
});
