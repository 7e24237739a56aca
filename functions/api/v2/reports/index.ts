import { apiHandler } from '#shared/http/handler.ts';
import { timeseries } from '#shared/domain/reports/service.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, query }) => timeseries(account, query) });
