import { apiHandler } from '#shared/http/handler.ts';
import { groupedConversationMetrics } from '#shared/domain/reports/live.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, query }) => groupedConversationMetrics(account, query) });
