import * as v from 'valibot';
import { apiHandler } from '#shared/http/handler.ts';
import { Id } from '#shared/domain/schemas.ts';
import { contactMergePayload } from '#shared/domain/contacts/merge.ts';
import { bodyOf } from '#shared/validate.ts';

const ContactMergeSchema = v.object({ base_contact_id: Id, mergee_contact_id: Id });

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(ContactMergeSchema),
  run: ({ account, body }) => contactMergePayload(account.id, body),
});
