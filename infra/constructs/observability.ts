import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { METRIC_NAMES, METRICS_NAMESPACE } from '#shared/metric-names.ts';
import type { EventPipeline } from './event-pipeline.ts';
import type { HttpApiRoutes } from './http-api.ts';

/** CloudWatch metric math alarms take at most 10 metrics. */
const METRICS_PER_ALARM = 10;
const FIVE_MINUTES = Duration.minutes(5);

export interface ObservabilityProps {
  http: HttpApiRoutes;
  pipeline: EventPipeline;
  /** Where every alarm notifies (ALARM and OK): every alarm has an action. */
  topic: sns.ITopic;
  /** p99 latency of the API above which it alarms (3 periods of 5 minutes). @default 3 s */
  latencyP99?: Duration;
  /** 5xx answers in 5 minutes from which it alarms. @default 5 */
  serverErrors?: number;
  /** Dimension value of the custom metrics (the functions' SERVICE_NAME). */
  serviceName: string;
}

/**
 * Alarms with actions and one dashboard for the whole service:
 *  - API: 5xx answers, p99 latency;
 *  - route functions: errors and throttles, one metric math alarm per ten functions, next to them in
 *    their nested stack (a CloudWatch alarm per function would cost ~$28 a month for 140 functions);
 *  - pipeline functions: errors and throttles each, the stream's iterator age, the oldest message of
 *    the events and deliveries queues, and (made by the pipeline) every dead-letter queue.
 */
export class Observability extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard;
  private readonly topic: sns.ITopic;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.topic = props.topic;
    const { http, pipeline } = props;
    const api = http.api;

    this.alarm(this, 'Api5xx', api.metricServerError({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM }), {
      threshold: props.serverErrors ?? 5,
      description: 'The API answered 5xx (function crashes, timeouts, or our 500 for a bug)',
    });
    this.alarm(this, 'ApiLatencyP99', api.metricLatency({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(99) }), {
      threshold: (props.latencyP99 ?? Duration.seconds(3)).toMilliseconds(),
      evaluationPeriods: 3,
      description: 'p99 latency of the API over three 5-minute periods',
    });

    // Route functions: errors and throttles per nested stack, in chunks of ten functions.
    const byStack = new Map<Stack, lambda.Function[]>();
    for (const fn of http.functions.values()) {
      const stack = Stack.of(fn);
      byStack.set(stack, [...(byStack.get(stack) ?? []), fn]);
    }
    for (const [stack, fns] of byStack) {
      for (let i = 0; i < fns.length; i += METRICS_PER_ALARM) {
        const chunk = fns.slice(i, i + METRICS_PER_ALARM);
        const suffix = `${i / METRICS_PER_ALARM + 1}`;
        for (const metricName of ['Errors', 'Throttles'] as const) {
          const usingMetrics = Object.fromEntries(
            chunk.map((fn, n) => [`m${n}`, fn.metric(metricName, { period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM })]),
          );
          const sum = new cloudwatch.MathExpression({
            expression: Object.keys(usingMetrics).join('+'),
            usingMetrics,
            period: FIVE_MINUTES,
            label: `${metricName} of ${chunk.length} route functions`,
          });
          this.alarm(stack, `RouteFunctions${metricName}${suffix}`, sum, {
            threshold: 0,
            description: `${metricName} of the route functions ${chunk.map((fn) => fn.node.id).join(', ')}`,
          });
        }
      }
    }

    for (const fn of [pipeline.streamFunction, pipeline.dispatchFunction, pipeline.deliverFunction, pipeline.mailFunction]) {
      this.alarm(this, `${fn.node.id}-errors`, fn.metricErrors({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM }), {
        threshold: 0,
        description: `${fn.node.id} failed (its batch is retried, then dead-lettered)`,
      });
      this.alarm(this, `${fn.node.id}-throttles`, fn.metricThrottles({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM }), {
        threshold: 0,
        description: `${fn.node.id} was throttled (account concurrency or its own cap)`,
      });
    }
    this.alarm(
      this,
      'StreamIteratorAge',
      pipeline.streamFunction.metric('IteratorAge', { period: FIVE_MINUTES, statistic: cloudwatch.Stats.MAXIMUM }),
      {
        threshold: Duration.minutes(5).toMilliseconds(),
        description: 'Table changes wait more than 5 minutes before they reach the events queue',
      },
    );
    this.alarm(
      this,
      'EventsOldestMessage',
      pipeline.eventsQueue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.MAXIMUM }),
      {
        threshold: Duration.minutes(15).toSeconds(),
        description: 'An event has waited more than 15 minutes for the dispatcher',
      },
    );
    // Deliveries to a receiver that is down wait in the queue between retries (backoff capped at 6 h),
    // so only an age past the longest backoff means the deliver function itself is not keeping up.
    this.alarm(
      this,
      'DeliveriesOldestMessage',
      pipeline.deliveriesQueue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.MAXIMUM }),
      {
        threshold: Duration.hours(7).toSeconds(),
        description: 'A webhook delivery has waited more than 7 hours (longer than the longest retry backoff)',
      },
    );
    for (const alarm of pipeline.alarms) this.notify(alarm);

    this.dashboard = this.buildDashboard(props);
  }

  private alarm(
    scope: Construct,
    id: string,
    metric: cloudwatch.IMetric,
    o: { threshold: number; description: string; evaluationPeriods?: number },
  ) {
    const alarm = new cloudwatch.Alarm(scope, id, {
      metric,
      threshold: o.threshold,
      evaluationPeriods: o.evaluationPeriods ?? 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: o.description,
    });
    this.notify(alarm);
    this.alarms.push(alarm);
    return alarm;
  }

  private notify(alarm: cloudwatch.Alarm) {
    alarm.addAlarmAction(new SnsAction(this.topic));
    alarm.addOkAction(new SnsAction(this.topic));
  }

  private buildDashboard(props: ObservabilityProps): cloudwatch.Dashboard {
    const { http, pipeline } = props;
    const api = http.api;
    const sum = { period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM };
    const custom = (metricName: string) =>
      new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { service: props.serviceName }, ...sum });
    const pipelineFns = [pipeline.streamFunction, pipeline.dispatchFunction, pipeline.deliverFunction, pipeline.mailFunction];
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    dashboard.addWidgets(
      graph('API requests', [api.metricCount(sum)], [api.metricClientError(sum), api.metricServerError(sum)]),
      graph('API latency (ms)', [
        api.metricLatency({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(50) }),
        api.metricLatency({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(99) }),
        api.metricIntegrationLatency({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.p(99) }),
      ]),
    );
    dashboard.addWidgets(
      graph('Deliveries', [
        custom(METRIC_NAMES.deliveriesSucceeded),
        custom(METRIC_NAMES.deliveriesFailed),
        custom(METRIC_NAMES.deliveriesDeadLettered),
      ]),
      graph('Events', [custom(METRIC_NAMES.eventsDispatched), custom(METRIC_NAMES.rulesRun)]),
    );
    dashboard.addWidgets(
      graph(
        'Pipeline functions: invocations and errors',
        pipelineFns.map((f) => f.metricInvocations(sum)),
        pipelineFns.map((f) => f.metricErrors(sum)),
      ),
      graph(
        'Pipeline lag',
        [
          pipeline.streamFunction.metric('IteratorAge', {
            period: FIVE_MINUTES,
            statistic: cloudwatch.Stats.MAXIMUM,
            label: 'stream iterator age (ms)',
          }),
        ],
        [
          pipeline.eventsQueue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, label: 'oldest event (s)' }),
          pipeline.deliveriesQueue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, label: 'oldest delivery (s)' }),
        ],
      ),
    );
    dashboard.addWidgets(
      graph(
        'Queues and dead-letter queues (messages)',
        [
          pipeline.eventsQueue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, label: 'events' }),
          pipeline.deliveriesQueue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, label: 'deliveries' }),
        ],
        [
          pipeline.eventsDlq.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, label: 'events DLQ' }),
          pipeline.deliveriesDlq.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, label: 'deliveries DLQ' }),
          pipeline.streamFailures.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, label: 'stream failures' }),
        ],
      ),
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: [...pipeline.alarms, ...this.alarms], width: 12, height: 8 }),
    );
    return dashboard;
  }
}

const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = []) =>
  new cloudwatch.GraphWidget({ title, left, right, width: 12, height: 6 });
