import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showCustomFilter } from '#shared/domain/custom-filters/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => showCustomFilter(ctx.account.id, ctx.actor, intParam(ctx, 'id', 'Custom filter')),
});
