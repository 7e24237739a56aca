import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateHook } from '#shared/domain/integrations/service.ts';
import { HookUpdateSchema } from '#shared/domain/integrations/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(HookUpdateSchema),
  rootKey: 'hook',
  run: (ctx) => updateHook(ctx.account, ctx.actor, intParam(ctx, 'id', 'Hook'), ctx.body),
});
