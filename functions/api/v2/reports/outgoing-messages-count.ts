import { apiHandler } from '#shared/http/handler.ts';
import { outgoingMessagesCount } from '#shared/domain/reports/breakdowns.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, query }) => outgoingMessagesCount(account, query) });
