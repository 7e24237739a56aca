import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateAgent } from '#shared/domain/agents/service.ts';
import { AgentUpdateSchema } from '#shared/domain/agents/schemas.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: AgentUpdateSchema,
  rootKey: 'agent',
  run: (ctx) => updateAgent(ctx.account, intParam(ctx, 'id', 'Agent'), ctx.body),
});
