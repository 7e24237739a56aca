import { apiHandler, intParam } from '#shared/http/handler.ts';
import { executeMacro } from '#shared/domain/macros/service.ts';
import { MacroExecutionSchema } from '#shared/domain/macros/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(MacroExecutionSchema),
  run: (ctx) => executeMacro(ctx.account, ctx.actor, intParam(ctx, 'id', 'Macro'), ctx.body.conversation_ids),
});
