import { sendAll } from '#shared/channels/send.ts';
import { observed } from '#shared/metrics.ts';

export const handler = observed(sendAll);
