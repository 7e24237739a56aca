import { deliverAll } from '#shared/events/deliver.ts';
import { observed } from '#shared/metrics.ts';

export const handler = observed(deliverAll);
