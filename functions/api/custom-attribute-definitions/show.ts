import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showAttributeDefinition } from '#shared/domain/custom-attributes/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => showAttributeDefinition(ctx.account.id, intParam(ctx, 'id', 'Custom attribute definition')),
});
