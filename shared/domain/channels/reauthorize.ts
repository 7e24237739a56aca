import { changeInboxAttributes } from '#shared/db/repositories/inboxes.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { now } from '#shared/model/time.ts';

// A provider refusing an inbox's token (Meta's code 190: expired, revoked): Chatwoot counts such errors and, at its
// threshold, marks the inbox `reauthorization_required` (shown in the inbox JSON) until the page is authorized
// again (docs/channels.md#facebook-messenger).

/** Messenger's threshold (Chatwoot: two errors). */
export const MESSENGER_REAUTHORIZATION_THRESHOLD = 2;

export async function noteAuthorizationError(inbox: InboxRecord, threshold = MESSENGER_REAUTHORIZATION_THRESHOLD): Promise<void> {
  const count = (inbox.authorization_error_count ?? 0) + 1;
  await changeInboxAttributes(inbox.account_id, inbox.id, {
    set: { authorization_error_count: count, ...(count >= threshold ? { reauthorization_required: true } : {}), updated_at: now() },
  });
}
