import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateSlaPolicy } from '#shared/domain/sla/service.ts';
import { SlaPolicyUpdateSchema } from '#shared/domain/sla/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(SlaPolicyUpdateSchema),
  rootKey: 'sla_policy',
  run: (ctx) => updateSlaPolicy(ctx.account.id, intParam(ctx, 'id', 'SlaPolicy'), ctx.body),
});
