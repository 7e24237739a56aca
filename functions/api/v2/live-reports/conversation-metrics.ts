import { apiHandler } from '#shared/http/handler.ts';
import { liveConversationMetrics } from '#shared/domain/reports/live.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, query }) => liveConversationMetrics(account, query) });
