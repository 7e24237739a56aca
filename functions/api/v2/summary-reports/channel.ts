import { apiHandler } from '#shared/http/handler.ts';
import { channelSummary } from '#shared/domain/reports/service.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, query }) => channelSummary(account, query) });
