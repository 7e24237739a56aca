import { apiHandler, intParam } from '#shared/http/handler.ts';
import { contactableInboxes } from '#shared/domain/contacts/contact-inboxes.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => contactableInboxes(ctx.account.id, ctx.actor, intParam(ctx, 'id', 'Contact')),
});
