// The event pipeline's queues and functions, read by the CDK construct and the local runtime alike.

export const EVENT_HANDLERS = {
  /** Table stream → events queue. */
  stream: 'functions/events/stream.ts',
  /** Events queue → webhooks, automation rules, agent bots (deliveries queue). */
  dispatch: 'functions/events/dispatch.ts',
  /** Deliveries queue → HTTP receivers. */
  deliver: 'functions/events/deliver.ts',
} as const;

export const QUEUES = {
  /** FIFO, grouped by item collection, so one conversation's events stay in order. */
  events: { name: 'events.fifo', dlq: 'events-dlq.fifo', fifo: true, visibilityTimeoutSeconds: 60, maxReceiveCount: 5 },
  /** Standard: one delivery per message, retried with backoff by the deliver function itself. */
  deliveries: { name: 'deliveries', dlq: 'deliveries-dlq', fifo: false, visibilityTimeoutSeconds: 60, maxReceiveCount: 50 },
} as const;

export const STREAM_MAX_RETRIES = 3;
