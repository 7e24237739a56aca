import { apiHandler } from '#shared/http/handler.ts';
import { createMacro } from '#shared/domain/macros/service.ts';
import { NewMacroSchema } from '#shared/domain/macros/schemas.ts';

export const handler = apiHandler({
  access: 'member',
  body: NewMacroSchema,
  rootKey: 'macro',
  run: ({ account, actor, body }) => createMacro(account, actor, body),
});
