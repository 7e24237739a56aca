import { apiHandler } from '#shared/http/handler.ts';
import { listAuditLogs } from '#shared/domain/audit/service.ts';
import { PageQuery } from '#shared/http/query-docs.ts';

export const handler = apiHandler({
  query: PageQuery,
  access: 'administrator',
  run: ({ account, query }) => listAuditLogs(account.id, query),
});
