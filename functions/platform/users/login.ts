import { intParam, platformHandler } from '#shared/http/handler.ts';
import { platformUserLogin } from '#shared/domain/sessions/service.ts';

export const handler = platformHandler({ run: (ctx) => platformUserLogin(ctx.appId, intParam(ctx, 'id', 'User')) });
