import { wakeUp } from '#shared/domain/sla/pipeline.ts';
import { observed } from '#shared/metrics.ts';
import type { Wakeup } from '#shared/model/sla.ts';

// An SLA deadline's wake-up (docs/sla.md#deadlines-on-time): EventBridge Scheduler's one-time schedule invokes it with
// the conversation; the conversation's applied SLA is evaluated at that instant.
export const handler = observed((event: Wakeup) => wakeUp(event));
