import type { Action, AutomationEvent, Condition } from './catalog.ts';

export interface AutomationRuleRecord {
  id: number;
  account_id: number;
  name: string;
  description: string | null;
  event_name: AutomationEvent;
  conditions: Condition[];
  actions: Action[];
  active: boolean;
  /** Unix seconds (Chatwoot's `created_on`). */
  created_on: number;
  updated_at: number;
  version: number;
}
