import { intParam, platformHandler } from '#shared/http/handler.ts';
import { showPlatformBot } from '#shared/domain/agent-bots/service.ts';

export const handler = platformHandler({ run: (ctx) => showPlatformBot(ctx.appId, intParam(ctx, 'id', 'Agent bot')) });
