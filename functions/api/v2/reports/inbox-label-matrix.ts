import { apiHandler } from '#shared/http/handler.ts';
import { inboxLabelMatrix } from '#shared/domain/reports/breakdowns.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, query }) => inboxLabelMatrix(account, query) });
