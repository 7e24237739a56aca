import { apiHandler } from '#shared/http/handler.ts';
import { listAccountReportingEvents } from '#shared/domain/reports/service.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, query }) => listAccountReportingEvents(account, query) });
