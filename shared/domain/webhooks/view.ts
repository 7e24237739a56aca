import type { InboxRecord } from '../../model/inboxes.ts';
import type { WebhookRecord } from '../../model/webhooks.ts';

/**
 * Spec §2 "Webhook" plus the signing secret (DESIGN.md §2); bare, as spec endpoints 8 and 9 answer.
 * `inbox` only when the webhook names one (Chatwoot's `inbox: {id, name}`).
 */
export const webhookJson = (w: WebhookRecord, inbox?: Pick<InboxRecord, 'id' | 'name'>) => ({
  id: w.id,
  url: w.url,
  name: w.name,
  subscriptions: w.subscriptions,
  account_id: w.account_id,
  secret: w.secret,
  ...(inbox ? { inbox: { id: inbox.id, name: inbox.name } } : {}),
});
