import { apiHandler, intParam } from '#shared/http/handler.ts';
import { listContactNotes } from '#shared/domain/contacts/notes.ts';

export const handler = apiHandler({
  access: 'member',
  run: (ctx) => listContactNotes(ctx.account.id, intParam(ctx, 'id', 'Contact')),
});
