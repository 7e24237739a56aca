import { intParam, platformHandler } from '#shared/http/handler.ts';
import { deletePlatformBot } from '#shared/domain/agent-bots/service.ts';

export const handler = platformHandler({ run: (ctx) => deletePlatformBot(ctx.appId, intParam(ctx, 'id', 'Agent bot')) });
