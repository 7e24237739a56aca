import { apiHandler } from '#shared/http/handler.ts';
import { createHook } from '#shared/domain/integrations/service.ts';
import { NewHookSchema } from '#shared/domain/integrations/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(NewHookSchema),
  rootKey: 'hook',
  run: ({ account, actor, body }) => createHook(account, actor, body),
});
