import { intParam, platformHandler } from '#shared/http/handler.ts';
import { upsertAccountUser } from '#shared/domain/account-users/service.ts';
import { NewAccountUserSchema } from '#shared/domain/account-users/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = platformHandler({
  body: bodyOf(NewAccountUserSchema),
  rootKey: 'account_user',
  run: (ctx) => upsertAccountUser(ctx.appId, intParam(ctx, 'account_id', 'Account'), ctx.body),
});
