import { apiHandler } from '#shared/http/handler.ts';
import { requestContactsExport } from '#shared/domain/contacts/export.ts';
import { ContactsExportSchema } from '#shared/domain/contacts/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(ContactsExportSchema),
  run: ({ account, actor, body }) =>
    requestContactsExport(account.id, actor, {
      column_names: body.column_names ?? undefined,
      payload: body.payload ?? undefined,
      label: body.label ?? undefined,
    }),
});
