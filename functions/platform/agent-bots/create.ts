import { platformHandler } from '#shared/http/handler.ts';
import { createPlatformBot } from '#shared/domain/agent-bots/service.ts';
import { NewPlatformAgentBotSchema } from '#shared/domain/agent-bots/schemas.ts';

export const handler = platformHandler({
  body: NewPlatformAgentBotSchema,
  rootKey: 'agent_bot',
  run: ({ appId, body }) => createPlatformBot(appId, body),
});
