import { apiHandler } from '../../../../shared/http/handler.ts';
import { csvReport } from '../../../../shared/domain/reports/service.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, query }) => csvReport(account, 'inboxes', query) });
