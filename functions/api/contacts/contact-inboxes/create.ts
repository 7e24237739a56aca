import { apiHandler, intParam } from '#shared/http/handler.ts';
import { createContactInboxPayload } from '#shared/domain/contacts/contact-inboxes.ts';
import { NewContactInboxSchema } from '#shared/domain/contacts/contact-inbox-schema.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(NewContactInboxSchema),
  run: (ctx) => createContactInboxPayload(ctx.account.id, ctx.actor, intParam(ctx, 'id', 'Contact'), ctx.body),
});
