import { apiHandler } from '#shared/http/handler.ts';
import { addInboxMembers } from '#shared/domain/inboxes/members.ts';
import { InboxMembersSchema } from '#shared/domain/inboxes/link-schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(InboxMembersSchema),
  run: ({ account, body }) => addInboxMembers(account, body),
});
