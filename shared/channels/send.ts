import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { decodeQueueBody } from '#shared/codec/queue-text.ts';
import { providerConfig } from '#shared/config.ts';
import { claimAge, claimOutgoing, loadOutgoing, recordFailure, recordSent, releaseOutgoing } from '#shared/domain/channels/send.ts';
import { log } from '#shared/log.ts';
import { backoffSeconds, hideFor } from '#shared/queues/backoff.ts';
import type { SendJob } from '#shared/queues/channels.ts';
import { inGroupOrder } from '#shared/queues/fifo.ts';
import { fileSigningReady } from '#shared/storage/file-urls.ts';
import { PROVIDER_CALL_MS } from './http.ts';
import { roomFor } from './rooms.ts';

// The channel-send consumer (docs/channels.md#outgoing): claim the message, the room sends it, the outcome is
// recorded. A provider 429/5xx or a network error gives the claim back and hides the job for a backoff (by
// visibility, as webhook deliveries retry); after MAX_ATTEMPTS the message fails with the last error. One
// conversation's sends (a queue group) go in order.
//
// At most once: a send happens only under a claim on the message, taken conditionally, so a job handled twice
// (a redelivery, a duplicate) finds it taken or the message sent. The one window where a message can reach the
// provider twice: the provider took the request but its answer never came (a timeout, a dropped connection);
// that is a retryable failure, so the claim is given back and the message sent again.

export const MAX_ATTEMPTS = 10;
/** A claim older than this belongs to an attempt that died mid-send (longer than any send takes). */
const STALE_CLAIM_MS = 10 * 60_000;
export const INTERRUPTED = 'Sending was interrupted: the provider may or may not have the message';
/** Beyond the provider calls, what a send needs to claim, record and hand the job back (ms). */
const SEND_MARGIN_MS = 5_000;

/**
 * The time a message's send may take at most: one provider call per part (each file, then the text), each waiting at
 * most PROVIDER_CALL_MS, and the claim and record around them. A send is started only with this much time left, so
 * that the function's timeout never cuts one off between the provider's answer and its record (which would leave a
 * stale claim, and the message failed as interrupted though the provider had it).
 */
export const sendBudgetMs = (attachments: number) => (attachments + 1) * PROVIDER_CALL_MS + SEND_MARGIN_MS;

/** The invocation's end, and the time it had at its start (a send that needs more is started only then). */
export interface Clock {
  deadline: number;
  fullMs: number;
}

/**
 * Whether a send of a message with `attachments` files may start at `now`: the time its parts may take is left, or
 * (a message needing more than any invocation has) the invocation is still as good as fresh.
 */
export const mayStartSend = (clock: Clock, attachments: number, now = Date.now()) =>
  clock.deadline - now >= Math.min(sendBudgetMs(attachments), clock.fullMs - SEND_MARGIN_MS);

async function attempt(record: SQSRecord, clock: Clock): Promise<boolean> {
  const job = decodeQueueBody<SendJob>(record.body);
  const ref = { account_id: job.account_id, conversation_id: job.conversation_id, message_id: job.message_id, inbox_id: job.inbox_id };
  const ctx = await loadOutgoing(ref);
  if (!ctx) return true;
  const room = roomFor(ctx.inbox);
  if (!room) return true;
  if (!mayStartSend(clock, ctx.message.attachments.length)) {
    // Too little of this invocation left: back to the queue at once (else after its visibility), unclaimed.
    log.info('channel send left for the next invocation: too little time left', { messageId: job.message_id });
    await hideFor(providerConfig().channelSendQueueUrl!, record.receiptHandle, 0).catch(() => undefined);
    return false;
  }
  const claim = await claimOutgoing(ctx.message);
  if ('held' in claim) {
    if (!claim.held) {
      log.info('channel send skipped: sent meanwhile', { messageId: job.message_id });
      return true;
    }
    const age = claimAge(claim.held);
    if (age > STALE_CLAIM_MS) {
      await recordFailure(ctx.message, INTERRUPTED);
      return true;
    }
    // Another attempt holds the claim: it records the outcome, or it died mid-send and its claim goes stale. Look
    // again then (dropping the job here would leave a message neither sent nor failed).
    await hideFor(providerConfig().channelSendQueueUrl!, record.receiptHandle, Math.ceil((STALE_CLAIM_MS - age) / 1000) + 1);
    return false;
  }
  const fields = { room: room.kind, accountId: job.account_id, conversationId: job.conversation_id, messageId: job.message_id };
  const attemptNo = Number(record.attributes.ApproximateReceiveCount ?? 1);
  let outcome: Awaited<ReturnType<typeof room.send>>;
  try {
    outcome = await room.send(ctx);
  } catch (error) {
    // A bug or an unreadable record in the room: nothing was sent; the claim is given back and the job retried.
    await releaseOutgoing(ctx.message, claim.token);
    throw error;
  }
  if ('sourceId' in outcome) {
    await recordSent(ctx.message, outcome);
    log.info('channel message sent', { ...fields, sourceId: outcome.sourceId });
    return true;
  }
  if ('refused' in outcome) {
    await recordFailure(ctx.message, outcome.refused);
    log.info('channel message refused', { ...fields, error: outcome.refused });
    return true;
  }
  if (attemptNo >= MAX_ATTEMPTS) {
    await recordFailure(ctx.message, outcome.retry);
    log.warn('channel message failed after retries', { ...fields, error: outcome.retry, attempt: attemptNo });
    return true;
  }
  await releaseOutgoing(ctx.message, claim.token);
  const wait = backoffSeconds(attemptNo, providerConfig().channelSendRetryBaseSeconds);
  log.info('channel send failed, will retry', { ...fields, error: outcome.retry, attempt: attemptNo, retryInSeconds: wait });
  await hideFor(providerConfig().channelSendQueueUrl!, record.receiptHandle, wait);
  return false;
}

export async function sendAll(event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse> {
  // Without a Lambda context (a direct call) nothing limits the time.
  const fullMs = context?.getRemainingTimeInMillis() ?? Number.POSITIVE_INFINITY;
  const clock = { deadline: Date.now() + fullMs, fullMs };
  // Attachments go out as signed file links.
  await fileSigningReady();
  return inGroupOrder(
    event,
    (record) => attempt(record, clock),
    (record, error) => log.error('channel send crashed', { messageId: record.messageId, error }),
  );
}
