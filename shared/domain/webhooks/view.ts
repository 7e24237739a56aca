import type { WebhookRecord } from './model.ts';

/** Spec §2 "Webhook" plus the signing secret (DESIGN.md §2); bare, as spec endpoints 8 and 9 answer. */
export const webhookJson = (w: WebhookRecord) => ({
  id: w.id,
  url: w.url,
  name: w.name,
  subscriptions: w.subscriptions,
  account_id: w.account_id,
  secret: w.secret,
});
