import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { decodeQueueBody } from '#shared/codec/queue-text.ts';
import { config } from '#shared/config.ts';
import { claimAge, claimOutgoing, loadOutgoing, recordFailure, recordSent, releaseOutgoing } from '#shared/domain/channels/send.ts';
import { log } from '#shared/log.ts';
import { backoffSeconds, hideFor } from '#shared/queues/backoff.ts';
import type { SendJob } from '#shared/queues/channels.ts';
import { inGroupOrder } from '#shared/queues/fifo.ts';
import { fileSigningReady } from '#shared/storage/file-urls.ts';
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

async function attempt(record: SQSRecord): Promise<boolean> {
  const job = decodeQueueBody<SendJob>(record.body);
  const ref = { account_id: job.account_id, conversation_id: job.conversation_id, message_id: job.message_id, inbox_id: job.inbox_id };
  const ctx = await loadOutgoing(ref);
  if (!ctx) return true;
  const room = roomFor(ctx.inbox);
  if (!room) return true;
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
    await hideFor(config().channelSendQueueUrl!, record.receiptHandle, Math.ceil((STALE_CLAIM_MS - age) / 1000) + 1);
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
  const wait = backoffSeconds(attemptNo, config().channelSendRetryBaseSeconds);
  log.info('channel send failed, will retry', { ...fields, error: outcome.retry, attempt: attemptNo, retryInSeconds: wait });
  await hideFor(config().channelSendQueueUrl!, record.receiptHandle, wait);
  return false;
}

export async function sendAll(event: SQSEvent): Promise<SQSBatchResponse> {
  // Attachments go out as signed file links.
  await fileSigningReady();
  return inGroupOrder(event, attempt, (record, error) => log.error('channel send crashed', { messageId: record.messageId, error }));
}
