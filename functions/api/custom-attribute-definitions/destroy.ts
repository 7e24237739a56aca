import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteAttributeDefinition } from '#shared/domain/custom-attributes/service.ts';

export const handler = apiHandler({
  emptyStatus: 204,
  access: 'administrator',
  run: (ctx) => deleteAttributeDefinition(ctx.account.id, intParam(ctx, 'id', 'Custom attribute definition')),
});
