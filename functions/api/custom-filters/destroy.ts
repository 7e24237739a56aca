import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteCustomFilter } from '#shared/domain/custom-filters/service.ts';

export const handler = apiHandler({
  emptyStatus: 204,
  access: 'member',
  run: (ctx) => deleteCustomFilter(ctx.account.id, ctx.actor, intParam(ctx, 'id', 'Custom filter')),
});
