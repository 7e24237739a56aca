import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateMacro } from '#shared/domain/macros/service.ts';
import { MacroUpdateSchema } from '#shared/domain/macros/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(MacroUpdateSchema),
  rootKey: 'macro',
  run: (ctx) => updateMacro(ctx.account, ctx.actor, intParam(ctx, 'id', 'Macro'), ctx.body),
});
