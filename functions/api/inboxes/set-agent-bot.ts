import { apiHandler, intParam } from '#shared/http/handler.ts';
import { setInboxAgentBot } from '#shared/domain/inboxes/service.ts';
import { SetAgentBotSchema } from '#shared/domain/inboxes/link-schemas.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: SetAgentBotSchema,
  run: (ctx) => setInboxAgentBot(ctx.account, intParam(ctx, 'id', 'Inbox'), ctx.body.agent_bot || null),
});
