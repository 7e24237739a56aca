import { apiHandler } from '#shared/http/handler.ts';
import { firstResponseTimeDistribution } from '#shared/domain/reports/breakdowns.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, query }) => firstResponseTimeDistribution(account, query) });
