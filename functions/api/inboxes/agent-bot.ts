import { apiHandler, intParam } from '#shared/http/handler.ts';
import { showInboxAgentBot } from '#shared/domain/inboxes/service.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => showInboxAgentBot(ctx.account, ctx.actor, intParam(ctx, 'id', 'Inbox')),
});
