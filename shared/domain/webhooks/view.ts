import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { WebhookRecord } from '#shared/model/webhooks.ts';

/**
 * The webhook of docs/contract.md#webhook plus its signing secret (docs/decisions.md#webhook-delivery); bare, as
 * contract endpoints 8 and 9 answer (docs/contract.md#endpoints).
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
