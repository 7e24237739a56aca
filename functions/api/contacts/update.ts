import { parseMultipart } from '#shared/http/multipart.ts';
import { apiHandler, intParam } from '#shared/http/handler.ts';
import { updateContactPayload } from '#shared/domain/contacts/service.ts';
import { ContactUpdateSchema } from '#shared/domain/contacts/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(ContactUpdateSchema),
  rootKey: 'contact',
  // `avatar` arrives as an uploaded file.
  multipart: parseMultipart,
  run: (ctx) => updateContactPayload(ctx.account.id, intParam(ctx, 'id', 'Contact'), ctx.body),
});
