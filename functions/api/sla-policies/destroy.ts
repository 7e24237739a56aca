import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteSlaPolicy } from '#shared/domain/sla/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: (ctx) => deleteSlaPolicy(ctx.account.id, intParam(ctx, 'id', 'SlaPolicy')),
});
