import { apiHandler } from '#shared/http/handler.ts';
import { createMacro } from '#shared/domain/macros/service.ts';
import { NewMacroSchema } from '#shared/domain/macros/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(NewMacroSchema),
  rootKey: 'macro',
  run: ({ account, actor, body }) => createMacro(account, actor, body),
});
