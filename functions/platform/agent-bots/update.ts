import { intParam, platformHandler } from '#shared/http/handler.ts';
import { updatePlatformBot } from '#shared/domain/agent-bots/service.ts';
import { PlatformAgentBotUpdateSchema } from '#shared/domain/agent-bots/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = platformHandler({
  body: bodyOf(PlatformAgentBotUpdateSchema),
  rootKey: 'agent_bot',
  run: (ctx) => updatePlatformBot(ctx.appId, intParam(ctx, 'id', 'Agent bot'), ctx.body),
});
