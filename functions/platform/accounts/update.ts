import { intParam, platformHandler } from '#shared/http/handler.ts';
import { updateAccount } from '#shared/domain/accounts/service.ts';
import { AccountUpdateSchema } from '#shared/domain/accounts/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = platformHandler({
  body: bodyOf(AccountUpdateSchema),
  rootKey: 'account',
  run: (ctx) => updateAccount(ctx.appId, intParam(ctx, 'account_id', 'Account'), ctx.body),
});
