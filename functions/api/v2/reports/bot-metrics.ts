import { apiHandler } from '#shared/http/handler.ts';
import { botMetrics } from '#shared/domain/reports/breakdowns.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, query }) => botMetrics(account, query) });
