import { apiHandler, intParam } from '#shared/http/handler.ts';
import { deleteContactNote } from '#shared/domain/contacts/notes.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => deleteContactNote(ctx.account.id, intParam(ctx, 'id', 'Contact'), intParam(ctx, 'note_id', 'Note')),
});
