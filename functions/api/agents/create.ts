import { apiHandler } from '#shared/http/handler.ts';
import { createAgent } from '#shared/domain/agents/service.ts';
import { NewAgentSchema } from '#shared/domain/agents/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(NewAgentSchema),
  rootKey: 'agent',
  run: ({ account, actor, body }) => createAgent(account, actor, body),
});
