import { intParam, platformHandler } from '#shared/http/handler.ts';
import { showAccount } from '#shared/domain/accounts/service.ts';

export const handler = platformHandler({
  run: (ctx) => showAccount(ctx.appId, intParam(ctx, 'account_id', 'Account')),
});
