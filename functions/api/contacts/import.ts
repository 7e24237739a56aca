import { apiHandler } from '#shared/http/handler.ts';
import { MAX_MULTIPART_BODY_BYTES } from '#shared/http/body.ts';
import { parseMultipart } from '#shared/http/multipart.ts';
import { requestContactsImport } from '#shared/domain/contacts/import.ts';
import { ContactsImportSchema } from '#shared/domain/contacts/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(ContactsImportSchema),
  multipart: parseMultipart,
  // The n8n node sends the file as JSON (its bytes as a number array): as large a body as a multipart one.
  maxBodyBytes: MAX_MULTIPART_BODY_BYTES,
  run: ({ account, actor, body }) => requestContactsImport(account.id, actor, body.import_file),
});
