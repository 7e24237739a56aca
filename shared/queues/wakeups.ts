import { config, pipelineConfig } from '#shared/config.ts';
import { observed } from '#shared/aws/observe.ts';
import { log } from '#shared/log.ts';
import type { Wakeup } from '#shared/model/sla.ts';

// A wake-up at an instant: deployed, an EventBridge Scheduler one-time schedule (`at(…)`) that invokes the SLA
// wake-up function with the payload and deletes itself; locally, the runtime's timer (useLocalWakeups). No table
// scan looks for due work: each deadline has its own wake-up (docs/sla.md#deadlines-on-time).

type LocalRunner = (w: Wakeup) => void;
let localRunner: LocalRunner | undefined;

/** The local runtime hands over its timer (or takes it back with undefined). */
export function useLocalWakeups(runner: LocalRunner | undefined): void {
  localRunner = runner;
}

// Scheduler's client loads with the first wake-up (a dynamic import): only the dispatcher and the wake-up function
// make them, and only for conversations with an SLA.
let client: Promise<import('@aws-sdk/client-scheduler').SchedulerClient> | undefined;
const scheduler = () =>
  (client ??= import('@aws-sdk/client-scheduler').then((m) => observed(new m.SchedulerClient({ region: config().region }))));

/** Scheduler's `at()` takes whole seconds in UTC, without a zone. */
export const atExpression = (at: number) => `at(${new Date(Math.ceil(at) * 1000).toISOString().slice(0, 19)})`;

/** One name per conversation and instant: a second request for the same wake-up is refused as a conflict (kept). */
export const wakeupName = (w: Wakeup) => `sla-${w.account_id}-${w.conversation_id}-${Math.ceil(w.at)}`;

export async function scheduleWakeup(w: Wakeup): Promise<void> {
  if (localRunner) return localRunner(w);
  const target = pipelineConfig().slaWakeups;
  if (!target) {
    log.warn('SLA wake-up not scheduled: no scheduler configured', { ...w });
    return;
  }
  const m = await import('@aws-sdk/client-scheduler');
  try {
    await (await scheduler()).send(
      new m.CreateScheduleCommand({
        Name: wakeupName(w),
        GroupName: target.group,
        ScheduleExpression: atExpression(w.at),
        ScheduleExpressionTimezone: 'UTC',
        FlexibleTimeWindow: { Mode: 'OFF' },
        ActionAfterCompletion: 'DELETE',
        Target: { Arn: target.functionArn, RoleArn: target.roleArn, Input: JSON.stringify(w) },
      }),
    );
  } catch (err) {
    if ((err as { name?: string }).name === 'ConflictException') return;
    throw err;
  }
}
