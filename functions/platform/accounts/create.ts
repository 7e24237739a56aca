import { platformHandler } from '#shared/http/handler.ts';
import { createAccount } from '#shared/domain/accounts/service.ts';
import { NewAccountSchema } from '#shared/domain/accounts/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = platformHandler({
  body: bodyOf(NewAccountSchema),
  rootKey: 'account',
  run: ({ appId, body }) => createAccount(appId, body),
});
