import { intParam, platformHandler } from '#shared/http/handler.ts';
import { deleteUser } from '#shared/domain/users/service.ts';

export const handler = platformHandler({ run: (ctx) => deleteUser(ctx.appId, intParam(ctx, 'id', 'User')) });
