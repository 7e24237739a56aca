import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateAgent } from '#shared/domain/agents/service.ts';
import { AgentUpdateSchema } from '#shared/domain/agents/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(AgentUpdateSchema),
  rootKey: 'agent',
  run: (ctx) => updateAgent(ctx.account, intParam(ctx, 'id', 'Agent'), ctx.body),
});
