import { apiHandler, intParam } from '#shared/http/handler.ts';
import { createContactInboxPayload } from '#shared/domain/contacts/contact-inboxes.ts';
import { NewContactInboxSchema } from '#shared/domain/contacts/contact-inbox-schema.ts';

export const handler = apiHandler({
  access: 'member',
  body: NewContactInboxSchema,
  run: (ctx) => createContactInboxPayload(ctx.account.id, ctx.actor, intParam(ctx, 'id', 'Contact'), ctx.body),
});
