import { intParam, platformHandler } from '#shared/http/handler.ts';
import { userToken } from '#shared/domain/users/service.ts';

export const handler = platformHandler({ run: (ctx) => userToken(ctx.appId, intParam(ctx, 'id', 'User')) });
