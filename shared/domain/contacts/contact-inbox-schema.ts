import * as v from 'valibot';
import { Bool, Id, Text } from '../schemas.ts';

// `POST /contacts/{id}/contact_inboxes`: apart from the contact bodies (schemas.ts), which its route would otherwise
// carry whole (docs/cost.md#cold-start). A blank source_id is none.

export const NewContactInboxSchema = v.object({
  inbox_id: Id,
  source_id: v.optional(
    v.nullable(
      v.pipe(
        Text(255),
        v.transform((s) => (s === '' ? null : s)),
      ),
    ),
  ),
  hmac_verified: v.optional(Bool),
});
export type NewContactInbox = v.InferOutput<typeof NewContactInboxSchema>;
