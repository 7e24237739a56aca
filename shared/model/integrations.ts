/** An integration hook (Chatwoot `integrations_hooks` row). */
export interface HookRecord {
  id: number;
  account_id: number;
  app_id: string;
  inbox_id: number | null;
  hook_type: 'account' | 'inbox';
  status: 'enabled' | 'disabled';
  settings: Record<string, unknown>;
  reference_id: string | null;
  created_at: number;
  updated_at: number;
  version: number;
}
