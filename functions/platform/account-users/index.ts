import { intParam, platformHandler } from '#shared/http/handler.ts';
import { listAccountUsersOf } from '#shared/domain/account-users/service.ts';

export const handler = platformHandler({
  run: (ctx) => listAccountUsersOf(ctx.appId, intParam(ctx, 'account_id', 'Account')),
});
