import { apiHandler } from '#shared/http/handler.ts';
import { summaryReport } from '#shared/domain/reports/service.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, query }) => summaryReport(account, 'inbox', query) });
