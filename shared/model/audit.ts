// Audit logs (docs/audit.md): which records are audited, the stamp a request's writes leave on them, and the
// entry the pipeline keeps for each of their changes (Chatwoot's enterprise audit trail, the `audited` gem's row).

/** The item types whose changes are audited, with Chatwoot's model name (`auditable_type`). */
export const AUDITED_TYPES: Readonly<Record<string, string>> = {
  account: 'Account',
  account_user: 'AccountUser',
  inbox: 'Inbox',
  webhook: 'Webhook',
  team: 'Team',
  automation_rule: 'AutomationRule',
  macro: 'Macro',
};

/** Who wrote (the request's actor) and from where; `null` ids when no request made the write (the pipeline, the platform API). */
export interface AuditStamp {
  user_id: number | null;
  user_type: 'User' | 'AgentBot' | null;
  remote_address: string | null;
}

/** The attribute a write of an audited item carries: the stamp of the request that made it (null outside one). */
export const AUDIT_BY = 'audit_by';
/** Set just before a request deletes an audited item: the deleter, read from the removed item's last image. */
export const AUDIT_DELETE = 'audit_delete';
export const AUDIT_ATTRIBUTES = [AUDIT_BY, AUDIT_DELETE];

export type AuditAction = 'create' | 'update' | 'destroy';

/** One audit entry, as stored (and answered, less the bookkeeping). */
export interface AuditRecord {
  id: number;
  account_id: number;
  auditable_id: number;
  auditable_type: string;
  action: AuditAction;
  /** create/destroy: attribute → value; update: attribute → [before, after] (the `audited` gem's shape). */
  audited_changes: Record<string, unknown>;
  user_id: number | null;
  user_type: 'User' | 'AgentBot' | null;
  remote_address: string | null;
  /** The record's own version after the change (1 for a create). */
  version: number;
  /** Unix seconds. */
  created_at: number;
}
