import { platformHandler } from '#shared/http/handler.ts';
import { listPlatformBots } from '#shared/domain/agent-bots/service.ts';

export const handler = platformHandler({ run: ({ appId }) => listPlatformBots(appId) });
