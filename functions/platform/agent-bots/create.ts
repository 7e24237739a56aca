import { platformHandler } from '#shared/http/handler.ts';
import { createPlatformBot } from '#shared/domain/agent-bots/service.ts';
import { NewPlatformAgentBotSchema } from '#shared/domain/agent-bots/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = platformHandler({
  body: bodyOf(NewPlatformAgentBotSchema),
  rootKey: 'agent_bot',
  run: ({ appId, body }) => createPlatformBot(appId, body),
});
