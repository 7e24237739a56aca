import { getWebhook } from '#shared/db/repositories/webhooks.ts';
import { ATTEMPT_SLOTS, listDeliveryAttempts, type DeliveryAttempt } from '#shared/db/repositories/delivery-attempts.ts';
import { notFound } from '#shared/errors.ts';

// What an operator sees of a webhook's deliveries: its recent attempts (the last ATTEMPT_SLOTS, a week at
// most), newest first. Dead-lettered ones are replayed with `npm run replay -- deliveries`
// (docs/operations.md#replaying-dead-lettered-deliveries).

export const deliveryAttemptJson = (a: DeliveryAttempt) => ({
  delivery_id: a.delivery_id,
  event: a.event,
  event_id: a.event_id,
  attempt: a.attempt,
  status: a.status,
  latency_ms: a.latency_ms,
  error: a.error,
  outcome: a.outcome,
  attempted_at: new Date(a.at).toISOString(),
});

/** `GET /api/v1/accounts/{account_id}/webhooks/{id}/deliveries`: 404 for a webhook not in the account. */
export async function listWebhookDeliveries(accountId: number, webhookId: number) {
  if (!(await getWebhook(accountId, webhookId))) throw notFound('Webhook');
  const attempts = await listDeliveryAttempts(accountId, webhookId);
  return { payload: { deliveries: attempts.map(deliveryAttemptJson) }, meta: { limit: ATTEMPT_SLOTS } };
}
