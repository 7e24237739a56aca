import { apiHandler } from '#shared/http/handler.ts';
import { summary } from '#shared/domain/reports/service.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, query }) => summary(account, query) });
