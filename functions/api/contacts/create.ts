import { parseMultipart } from '#shared/http/multipart.ts';
import { apiHandler } from '#shared/http/handler.ts';
import { createContactPayload } from '#shared/domain/contacts/service.ts';
import { NewContactSchema } from '#shared/domain/contacts/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(NewContactSchema),
  rootKey: 'contact',
  // `avatar` arrives as an uploaded file.
  multipart: parseMultipart,
  run: ({ account, actor, body }) => createContactPayload(account.id, actor, body),
});
