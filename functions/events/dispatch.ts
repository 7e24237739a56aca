import { dispatchChanges } from '#shared/events/dispatch.ts';
import { observed } from '#shared/metrics.ts';

export const handler = observed(dispatchChanges);
