import { apiHandler, intParam } from '#shared/http/handler.ts';
import { createContactNote } from '#shared/domain/contacts/notes.ts';
import { ContactNoteSchema } from '#shared/domain/contacts/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(ContactNoteSchema),
  rootKey: 'note',
  run: (ctx) => createContactNote(ctx.account.id, intParam(ctx, 'id', 'Contact'), ctx.actor, ctx.body),
});
