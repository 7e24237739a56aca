import { ChangeMessageVisibilityBatchCommand, ChangeMessageVisibilityCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { inGroupOrder } from '#shared/queues/fifo.ts';
import { config, pipelineConfig } from '#shared/config.ts';
import { log } from '#shared/log.ts';
import { METRIC_NAMES } from '#shared/metric-names.ts';
import { count } from '#shared/metrics.ts';
import { postJson } from '#shared/outbound/send.ts';
import { signatureHeaders } from '#shared/outbound/sign.ts';
import { deliveryGroup, type Delivery } from '#shared/queues/deliveries.ts';
import { sqs } from '#shared/queues/client.ts';
import { backoffSeconds } from '#shared/queues/backoff.ts';
import { decodeQueueBody, queueSafeText } from '#shared/codec/queue-text.ts';
import { markCallbackFailed } from '#shared/domain/messages/service.ts';
import { suspendedAccounts } from '#shared/domain/accounts/suspension.ts';
import { getWebhook } from '#shared/db/repositories/webhooks.ts';
import { recordDeliveryAttempts, type DeliveryAttempt } from '#shared/db/repositories/delivery-attempts.ts';
import { getInbox } from '#shared/db/repositories/inboxes.ts';
import { getAgentBots } from '#shared/db/repositories/identity.ts';
import { unseal } from '#shared/crypto/tokens.ts';

export { backoffSeconds };

type Outcome = 'delivered' | 'retry' | 'dead';

/**
 * The signing secret of a delivery's receiver, read and unsealed here so that no secret waits on the
 * queue or its DLQ; undefined when the receiver is gone (the delivery is dropped).
 */
async function signingSecret(delivery: Delivery): Promise<string | null | undefined> {
  // Queued before secrets left the queue.
  if (delivery.secret !== undefined) return delivery.secret;
  const { kind, id } = delivery.target;
  switch (kind) {
    case 'webhook':
      return (await getWebhook(delivery.account_id, id))?.secret;
    case 'api_inbox': {
      const inbox = await getInbox(delivery.account_id, id);
      return inbox ? inbox.hmac_token : undefined;
    }
    case 'agent_bot': {
      // Bots verify with their own access token: it is the secret they already hold.
      const [bot] = await getAgentBots([id]);
      return bot ? unseal(bot.sealed_token) : undefined;
    }
    default:
      return null;
  }
}

async function deadLetter(record: SQSRecord, delivery: Delivery, reason: string): Promise<void> {
  const dlq = pipelineConfig().deliveriesDlqUrl;
  if (!dlq) throw new Error('DELIVERIES_DLQ_URL is not configured');
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: dlq,
      MessageBody: record.body,
      MessageGroupId: deliveryGroup(delivery),
      MessageDeduplicationId: record.attributes.MessageDeduplicationId ?? record.messageId,
      MessageAttributes: {
        reason: { DataType: 'String', StringValue: queueSafeText(reason.slice(0, 1000)) },
        // When it was dead-lettered (a replay `--since` a time reads it; it survives moves within the DLQ).
        dead_lettered_at: { DataType: 'Number', StringValue: String(Date.now()) },
      },
    }),
  );
}

// Chatwoot marks a message `failed` when the API inbox's callback refuses its event; the delivery is
// still retried (a later success leaves the mark: the integration reports delivery itself).
const MESSAGE_EVENTS = new Set(['message_created', 'message_updated']);

async function reportToMessage(delivery: Delivery, error: string): Promise<void> {
  if (delivery.target.kind !== 'api_inbox' || !MESSAGE_EVENTS.has(delivery.event)) return;
  try {
    const payload = JSON.parse(delivery.body) as { id?: unknown; conversation?: { id?: unknown } };
    if (typeof payload.id !== 'number' || typeof payload.conversation?.id !== 'number') return;
    await markCallbackFailed(delivery.account_id, payload.conversation.id, payload.id, error);
  } catch (err) {
    // The delivery's own retry must not depend on this bookkeeping.
    log.warn('could not mark the message failed', { deliveryId: delivery.id, error: err });
  }
}

/**
 * The attempts a delivery batch made at each webhook, written to its recent-attempts log as one item per
 * webhook when the batch ends (bookkeeping, so a failure to write it is only logged).
 */
class AttemptLog {
  private readonly byWebhook = new Map<string, { accountId: number; webhookId: number; attempts: DeliveryAttempt[] }>();

  note(delivery: Delivery, a: Omit<DeliveryAttempt, 'delivery_id' | 'event' | 'event_id'>) {
    if (delivery.target.kind !== 'webhook') return;
    const id = `${delivery.account_id}:${delivery.target.id}`;
    const entry = this.byWebhook.get(id) ?? { accountId: delivery.account_id, webhookId: delivery.target.id, attempts: [] };
    entry.attempts.push({ delivery_id: delivery.id, event: delivery.event, event_id: delivery.event_id, ...a });
    this.byWebhook.set(id, entry);
  }

  async write() {
    await Promise.all(
      [...this.byWebhook.values()].map((e) =>
        recordDeliveryAttempts(e.accountId, e.webhookId, e.attempts).catch((error) =>
          log.warn('could not record the delivery attempts', { webhookId: e.webhookId, attempts: e.attempts.length, error }),
        ),
      ),
    );
  }
}

async function attempt(
  record: SQSRecord,
  suspended: (accountId: number) => Promise<boolean>,
  attempts: AttemptLog,
): Promise<Outcome | 'dropped'> {
  const c = config();
  const p = pipelineConfig();
  const delivery = decodeQueueBody<Delivery>(record.body);
  const attemptNo = Number(record.attributes.ApproximateReceiveCount ?? 1);
  // Queued before the account was suspended: not sent (nor kept for later).
  if (await suspended(delivery.account_id)) {
    log.warn('delivery dropped: account suspended', {
      eventId: delivery.event_id,
      deliveryId: delivery.id,
      accountId: delivery.account_id,
    });
    return 'dropped';
  }
  const secret = await signingSecret(delivery);
  if (secret === undefined) {
    log.warn('delivery dropped: receiver deleted', { eventId: delivery.event_id, deliveryId: delivery.id, target: delivery.target });
    return 'dropped';
  }
  const headers = signatureHeaders(secret, delivery.id, delivery.body, Math.floor(Date.now() / 1000));
  const sentAt = Date.now();
  const result = await postJson(delivery.url, delivery.body, headers, {
    timeoutMs: p.webhookTimeoutMs,
    targets: c.webhookTargets,
  });
  const tried = { attempt: attemptNo, status: result.status ?? null, latency_ms: Date.now() - sentAt, at: sentAt };
  const fields = {
    eventId: delivery.event_id,
    deliveryId: delivery.id,
    event: delivery.event,
    target: delivery.target,
    attempt: attemptNo,
  };
  if (result.ok) {
    log.info('delivered', { ...fields, status: result.status });
    count(METRIC_NAMES.deliveriesSucceeded);
    attempts.note(delivery, { ...tried, error: null, outcome: 'delivered' });
    return 'delivered';
  }
  const error = result.error ?? `HTTP ${result.status ?? 'error'}`;
  await reportToMessage(delivery, error);
  const wait = backoffSeconds(attemptNo, p.webhookRetryBaseSeconds);
  // A replayed delivery gets a new retry window from its replay.
  const tooOld = Date.now() + wait * 1000 - (delivery.replayed_at ?? delivery.created_at) > p.webhookMaxAgeSeconds * 1000;
  if (result.permanent || tooOld) {
    log.warn('delivery dead-lettered', { ...fields, error: result.error, status: result.status });
    attempts.note(delivery, { ...tried, error, outcome: 'dead' });
    await deadLetter(record, delivery, result.error ?? 'failed');
    count(METRIC_NAMES.deliveriesDeadLettered);
    return 'dead';
  }
  log.info('delivery failed, will retry', { ...fields, error: result.error, status: result.status, retryInSeconds: wait });
  attempts.note(delivery, { ...tried, error, outcome: 'retry' });
  await sqs().send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: c.deliveriesQueueUrl!,
      ReceiptHandle: record.receiptHandle,
      VisibilityTimeout: wait,
    }),
  );
  count(METRIC_NAMES.deliveriesFailed);
  return 'retry';
}

/**
 * Deliveries queue → receivers. Groups (receiver × conversation) run side by side, so a slow or dead
 * receiver holds back nobody else; inside a group messages go one by one, and the first failure also
 * returns the rest of its group to the queue, so order within a group holds across retries.
 */
export const deliverAll = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const suspended = suspendedAccounts();
  const heads = new Set<string>();
  const attempts = new AttemptLog();
  const res = await inGroupOrder(
    event,
    async (record) => {
      const done = (await attempt(record, suspended, attempts)) !== 'retry';
      if (!done) heads.add(record.messageId);
      return done;
    },
    (record, error) => {
      heads.add(record.messageId);
      log.error('delivery crashed', { messageId: record.messageId, error });
    },
  );
  await attempts.write();
  // What waits behind a failed delivery of its group is visible again at once: FIFO still holds it behind
  // its head, so the group goes on after the head's backoff, not after the queue's visibility timeout.
  const behind = event.Records.filter(
    (r) => !heads.has(r.messageId) && res.batchItemFailures.some((f) => f.itemIdentifier === r.messageId),
  );
  for (let i = 0; i < behind.length; i += 10) {
    await sqs()
      .send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: config().deliveriesQueueUrl!,
          Entries: behind.slice(i, i + 10).map((r, n) => ({ Id: String(n), ReceiptHandle: r.receiptHandle, VisibilityTimeout: 0 })),
        }),
      )
      .catch((error) => log.warn('could not return deliveries behind a retry', { error }));
  }
  return res;
};
