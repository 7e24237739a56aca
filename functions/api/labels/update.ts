import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateLabel } from '#shared/domain/labels/service.ts';
import { LabelUpdateSchema } from '#shared/domain/labels/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(LabelUpdateSchema),
  rootKey: 'label',
  run: (ctx) => updateLabel(ctx.account.id, intParam(ctx, 'id', 'Label'), ctx.body),
});
