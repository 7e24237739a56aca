import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteAgent } from '#shared/domain/agents/service.ts';

export const handler = apiHandler({ access: 'administrator', run: (ctx) => deleteAgent(ctx.account, intParam(ctx, 'id', 'Agent')) });
