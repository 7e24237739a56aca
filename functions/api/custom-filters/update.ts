import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateCustomFilter } from '#shared/domain/custom-filters/service.ts';
import { CustomFilterUpdateSchema } from '#shared/domain/custom-filters/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(CustomFilterUpdateSchema),
  rootKey: 'custom_filter',
  run: (ctx) => updateCustomFilter(ctx.account.id, ctx.actor, intParam(ctx, 'id', 'Custom filter'), ctx.body),
});
