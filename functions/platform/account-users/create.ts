import { intParam, platformHandler } from '#shared/http/handler.ts';
import { upsertAccountUser } from '#shared/domain/account-users/service.ts';
import { NewAccountUserSchema } from '#shared/domain/account-users/schemas.ts';

export const handler = platformHandler({
  body: NewAccountUserSchema,
  rootKey: 'account_user',
  run: (ctx) => upsertAccountUser(ctx.appId, intParam(ctx, 'account_id', 'Account'), ctx.body),
});
