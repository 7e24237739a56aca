import { apiHandler, intParam } from '#shared/http/handler.ts';
import { setInboxAgentBot } from '#shared/domain/inboxes/service.ts';
import { SetAgentBotSchema } from '#shared/domain/inboxes/link-schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(SetAgentBotSchema),
  run: (ctx) => setInboxAgentBot(ctx.account, intParam(ctx, 'id', 'Inbox'), ctx.body.agent_bot || null),
});
