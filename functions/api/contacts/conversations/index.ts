import { apiHandler, intParam } from '#shared/http/handler.ts';
import { contactConversations } from '#shared/domain/conversations/finder.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => contactConversations(ctx.account, ctx.actor, intParam(ctx, 'id', 'Contact')),
});
