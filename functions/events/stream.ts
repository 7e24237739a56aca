import { forwardChanges } from '#shared/events/forward.ts';
import { observed } from '#shared/metrics.ts';

export const handler = observed(forwardChanges);
