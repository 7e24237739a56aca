import { userHandler } from '#shared/http/handler.ts';
import { setActiveAccount } from '#shared/domain/users/profile.ts';
import { ActiveAccountSchema } from '#shared/domain/users/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = userHandler({
  body: bodyOf(ActiveAccountSchema),
  rootKey: 'profile',
  run: ({ user, body }) => setActiveAccount(user, body.account_id),
});
