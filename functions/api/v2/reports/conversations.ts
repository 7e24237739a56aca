import { apiHandler } from '#shared/http/handler.ts';
import { conversationMetrics } from '#shared/domain/reports/service.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, query }) => conversationMetrics(account, query) });
