import { apiHandler } from '#shared/http/handler.ts';
import { botSummary } from '#shared/domain/reports/service.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, query }) => botSummary(account, query) });
