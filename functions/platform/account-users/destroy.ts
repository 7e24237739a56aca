import { intParam, platformHandler } from '#shared/http/handler.ts';
import { removeAccountUser } from '#shared/domain/account-users/service.ts';
import { AccountUserRemovalSchema } from '#shared/domain/account-users/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = platformHandler({
  body: bodyOf(AccountUserRemovalSchema),
  rootKey: 'account_user',
  run: (ctx) => removeAccountUser(ctx.appId, intParam(ctx, 'account_id', 'Account'), ctx.body.user_id),
});
