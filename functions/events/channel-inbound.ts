import { receiveAll } from '#shared/channels/inbound.ts';
import { observed } from '#shared/metrics.ts';

export const handler = observed(receiveAll);
