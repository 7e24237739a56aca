import { apiHandler } from '#shared/http/handler.ts';
import { listAuditLogs } from '#shared/domain/audit/service.ts';

export const handler = apiHandler({
  access: 'administrator',
  run: ({ account, query }) => listAuditLogs(account.id, query),
});
