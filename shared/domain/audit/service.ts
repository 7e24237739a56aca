import { listAuditEntries } from '#shared/db/repositories/audit-logs.ts';
import type { AuditRecord } from '#shared/model/audit.ts';
import { pageNumber } from '../paging.ts';

// `GET /api/v1/accounts/{account_id}/audit_logs` (docs/audit.md): Chatwoot's audit trail, newest first, 25 a page.

export const AUDIT_LOGS_PER_PAGE = 25;

/** Kaminari's reading of `page`: anything but a positive integer is the first page. */
/** One entry as Chatwoot's jbuilder view shows it (the audited record itself, `auditable`, is not kept). */
export const auditLogJson = (e: AuditRecord) => ({
  id: e.id,
  auditable_id: e.auditable_id,
  auditable_type: e.auditable_type,
  auditable: null,
  associated_id: e.account_id,
  associated_type: 'Account',
  user_id: e.user_id,
  user_type: e.user_type,
  username: null,
  action: e.action,
  audited_changes: e.audited_changes,
  version: e.version,
  comment: null,
  request_uuid: null,
  created_at: e.created_at,
  remote_address: e.remote_address,
});

export async function listAuditLogs(accountId: number, query: { page?: string }) {
  const page = pageNumber(query.page);
  const { entries, total } = await listAuditEntries(accountId, page, AUDIT_LOGS_PER_PAGE, Math.floor(Date.now() / 1000));
  return { audit_logs: entries.map(auditLogJson), per_page: AUDIT_LOGS_PER_PAGE, total_entries: total, current_page: page };
}
