import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { config } from './config.ts';
import { addLogContext } from './log.ts';
import { METRICS_NAMESPACE, type METRIC_NAMES } from './metric-names.ts';

// Powertools Metrics: counters as CloudWatch embedded metric format lines, which CloudWatch turns into
// metrics without an API call. Emitted only where SERVICE_NAME is set (deployed: the stack's name, the
// dashboard's dimension); locally and in tests they would only be noise on stdout.

type MetricName = (typeof METRIC_NAMES)[keyof typeof METRIC_NAMES];

let metrics: Metrics | undefined;
let pending = 0;

function instance(): Metrics | undefined {
  const service = config().serviceName;
  if (!config().metricsEnabled) return undefined;
  metrics ??= new Metrics({ namespace: METRICS_NAMESPACE, serviceName: service });
  return metrics;
}

export function count(name: MetricName, value = 1): void {
  const m = instance();
  if (!m || value <= 0) return;
  m.addMetric(name, MetricUnit.Count, value);
  pending++;
}

/** Writes the invocation's counters (one EMF line); nothing when none were counted. */
export function flushMetrics(): void {
  if (!pending) return;
  pending = 0;
  instance()?.publishStoredMetrics();
}

/** A queue consumer with log context and its counters flushed after each invocation, failed or not. */
export function observed<E, R>(handler: (event: E, context?: Context) => Promise<R>): (event: E, context?: Context) => Promise<R> {
  return async (event, context) => {
    addLogContext(context);
    try {
      return await handler(event, context);
    } finally {
      flushMetrics();
    }
  };
}
