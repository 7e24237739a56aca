import { intParam, platformHandler } from '#shared/http/handler.ts';
import { showUser } from '#shared/domain/users/service.ts';

export const handler = platformHandler({ run: (ctx) => showUser(ctx.appId, intParam(ctx, 'id', 'User')) });
