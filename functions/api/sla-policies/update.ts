import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateSlaPolicy } from '#shared/domain/sla/service.ts';
import { SlaPolicyUpdateSchema } from '#shared/domain/sla/schemas.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: SlaPolicyUpdateSchema,
  rootKey: 'sla_policy',
  run: (ctx) => updateSlaPolicy(ctx.account.id, intParam(ctx, 'id', 'SlaPolicy'), ctx.body),
});
