// The event pipeline's queues and functions, read by the CDK construct and the local runtime alike.

export const EVENT_HANDLERS = {
  /** Table stream → events queue. */
  stream: 'functions/events/stream.ts',
  /** Events queue → webhooks, automation rules, agent bots (deliveries queue). */
  dispatch: 'functions/events/dispatch.ts',
  /** Deliveries queue → HTTP receivers. */
  deliver: 'functions/events/deliver.ts',
} as const;

/** The event pipeline's function names (bundle folders), keyed like EVENT_HANDLERS. */
export const EVENT_FUNCTION_NAMES = {
  stream: 'events-stream',
  dispatch: 'events-dispatch',
  deliver: 'events-deliver',
} as const satisfies Record<keyof typeof EVENT_HANDLERS, string>;

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
} as const;

export const STREAM_MAX_RETRIES = 3;
