import { apiHandler, intParam } from '#shared/http/handler.ts';
import { listInboxMembers } from '#shared/domain/inboxes/members.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => listInboxMembers(ctx.account, ctx.actor, intParam(ctx, 'inbox_id', 'Inbox')),
});
