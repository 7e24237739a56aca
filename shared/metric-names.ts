// The service's own CloudWatch metrics (embedded metric format): the functions emit them, the stack's
// dashboard graphs them. One dimension, `service`, the deployment's SERVICE_NAME.

export const METRICS_NAMESPACE = 'ChatwootServerless';

export const METRIC_NAMES = {
  /** A receiver answered 2xx. */
  deliveriesSucceeded: 'DeliveriesSucceeded',
  /** An attempt failed and the delivery was put back for a retry. */
  deliveriesFailed: 'DeliveriesFailed',
  /** A delivery exhausted its retries or was refused, and went to the dead-letter queue. */
  deliveriesDeadLettered: 'DeliveriesDeadLettered',
  /** Chatwoot events the dispatcher derived from table changes. */
  eventsDispatched: 'EventsDispatched',
  /** Automation rules whose conditions matched and whose actions ran. */
  rulesRun: 'RulesRun',
} as const;
