import { intParam, platformHandler } from '#shared/http/handler.ts';
import { deleteAccount } from '#shared/domain/accounts/service.ts';

export const handler = platformHandler({
  run: (ctx) => deleteAccount(ctx.appId, intParam(ctx, 'account_id', 'Account')),
});
