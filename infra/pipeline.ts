// The event pipeline's queues and functions, read by the CDK construct and the local runtime alike.

export const EVENT_HANDLERS = {
  /** Table stream → events queue. */
  stream: 'functions/events/stream.ts',
  /** Events queue → webhooks, automation rules, agent bots (deliveries queue). */
  dispatch: 'functions/events/dispatch.ts',
  /** Deliveries queue → HTTP receivers. */
  deliver: 'functions/events/deliver.ts',
  /** Mail queue → Amazon SES (locally SMTP, a folder or the log). */
  mail: 'functions/events/mail.ts',
  /** Channel-inbound queue → provider webhooks processed (shared/channels/inbound.ts). */
  channelInbound: 'functions/events/channel-inbound.ts',
  /** Channel-send queue → messages sent to the providers (shared/channels/send.ts). */
  channelSend: 'functions/events/channel-send.ts',
  /** SES receiving (its receipt rule) → the channel-inbound queue (shared/channels/email/ingress.ts). */
  emailSes: 'functions/events/email-ses.ts',
  /** A schedule → the IMAP inboxes polled, their new mails to the channel-inbound queue (shared/channels/email/imap.ts). */
  imapPoll: 'functions/events/imap-poll.ts',
  /** An SLA deadline's one-time schedule → the conversation's applied SLA evaluated (shared/domain/sla/pipeline.ts). */
  slaWakeup: 'functions/events/sla-wakeup.ts',
} as const;

/** The event pipeline's function names (bundle folders), keyed like EVENT_HANDLERS. */
export const EVENT_FUNCTION_NAMES = {
  stream: 'events-stream',
  dispatch: 'events-dispatch',
  deliver: 'events-deliver',
  mail: 'events-mail',
  channelInbound: 'channel-inbound',
  channelSend: 'channel-send',
  emailSes: 'email-ses',
  imapPoll: 'imap-poll',
  slaWakeup: 'sla-wakeup',
} as const satisfies Record<keyof typeof EVENT_HANDLERS, string>;

/** AWS: an SQS-triggered function's timeout should be at most a sixth of the queue's visibility timeout. */
export const consumerTimeoutSeconds = (visibilityTimeoutSeconds: number) => Math.max(1, Math.floor(visibilityTimeoutSeconds / 6));

export const QUEUES = {
  /** FIFO, grouped by item collection, so one conversation's events stay in order. */
  events: { name: 'events.fifo', dlq: 'events-dlq.fifo', fifo: true, visibilityTimeoutSeconds: 60, maxReceiveCount: 5 },
  /**
   * FIFO, grouped by receiver and conversation: one receiver's deliveries of one conversation arrive in
   * order, and a failing receiver holds back only its own groups. The deliver function retries with
   * backoff by hiding a failed message (visibility) and moves it to the DLQ itself after ~3 days;
   * maxReceiveCount is only a safety net. The visibility leaves the deliver function 20 s (a sixth),
   * room for a receiver that takes the whole 10 s webhook timeout.
   */
  deliveries: { name: 'deliveries.fifo', dlq: 'deliveries-dlq.fifo', fifo: true, visibilityTimeoutSeconds: 120, maxReceiveCount: 200 },
  /**
   * FIFO only for deduplication: each mail is its own group, its request id the deduplication id, so a
   * retried dispatch sends one mail. A mail SES (or SMTP) refuses is tried 5 times, a minute apart, then
   * dead-lettered (alarmed).
   */
  mail: { name: 'mail.fifo', dlq: 'mail-dlq.fifo', fifo: true, visibilityTimeoutSeconds: 60, maxReceiveCount: 5 },
  /**
   * FIFO, grouped by inbox and contact: one contact's webhooks are processed in order (its contact and conversation
   * made once); the provider's message ids deduplicate a provider's retry. A webhook failing 5 times is
   * dead-lettered (alarmed). The visibility leaves the consumer 60 s (a media lookup and download take up to 45 s).
   */
  channelInbound: {
    name: 'channel-inbound.fifo',
    dlq: 'channel-inbound-dlq.fifo',
    fifo: true,
    visibilityTimeoutSeconds: 360,
    maxReceiveCount: 5,
  },
  /**
   * FIFO, grouped by conversation: one conversation's messages reach the provider in order. The consumer retries
   * a provider 429/5xx with backoff by visibility and fails the message itself after 10 attempts; maxReceiveCount
   * is only a safety net. A send is started only with the time its parts may take left in the invocation
   * (shared/channels/send.ts).
   */
  channelSend: { name: 'channel-send.fifo', dlq: 'channel-send-dlq.fifo', fifo: true, visibilityTimeoutSeconds: 120, maxReceiveCount: 30 },
} as const;

/**
 * The table stream → stream function event source mapping. The CDK construct configures Lambda with it
 * and the local stream poller behaves by it, so a failing record is handled the same way in both.
 */
export const STREAM_SOURCE = {
  startingPosition: 'TRIM_HORIZON',
  batchSize: 100,
  /**
   * Batches of one shard in flight at once (Lambda keeps each partition key's records in order). The
   * forwarder does ~100 records per 50 ms, so 4 per shard carries well over the 200 changes/s the
   * dispatcher is sized for, with room for bursts.
   */
  parallelizationFactor: 4,
  /** The function answers with the first record it could not forward; later records are retried with it. */
  reportBatchItemFailures: true,
  /** Retries of a failing batch (from its first failed record on) before it is split. */
  retryAttempts: 3,
  /**
   * A batch still failing is split in two and each half tried on its own, down to the single record
   * that fails: only that record goes to the failure destination, its neighbours go on.
   */
  bisectBatchOnFunctionError: true,
  /** Older records go to the failure destination unprocessed (the stream keeps records 24 h). */
  maxRecordAgeSeconds: 24 * 3600,
  /**
   * The on-failure destination. Lambda writes one object per failed batch (bisected: one record) to the
   * bucket, its invocation record with the event itself as `payload` (the record's content); the bucket
   * notifies the queue (a standard queue: it raises the alarm and is what a replay reads). The local poller
   * writes the same object to the emulated bucket and the same notification to the queue. Objects expire
   * after `retentionDays`. Replayed by `npm run replay -- stream-failures`.
   */
  failureDestination: { bucket: 'stream-failures', queue: 'stream-failures', retentionDays: 14 },
  /** Local poller only: first retry delay, doubling per retry (Lambda picks its own). */
  localRetryBaseMs: 100,
} as const;

/** The SQS → function event source mappings (the local queue pollers read the same numbers). */
export const QUEUE_SOURCES = {
  /**
   * A warm dispatcher handles a batch of 10 changes in ~50-100 ms (two table calls per message, one
   * SendMessageBatch), so 20 side by side carry ~2,000 changes/s; FIFO groups (conversations) bound it too.
   */
  dispatch: { queue: 'events', batchSize: 10, reportBatchItemFailures: true, maxConcurrency: 20 },
  deliver: { queue: 'deliveries', batchSize: 10, reportBatchItemFailures: true },
  /** SES's default sending rate is 14 mails/s: 2 consumers of 10 stay near it. */
  mail: { queue: 'mail', batchSize: 10, reportBatchItemFailures: true, maxConcurrency: 2 },
  channelInbound: { queue: 'channelInbound', batchSize: 10, reportBatchItemFailures: true, maxConcurrency: 10 },
  channelSend: { queue: 'channelSend', batchSize: 10, reportBatchItemFailures: true, maxConcurrency: 10 },
} as const;
