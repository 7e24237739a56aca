import type { AutomationRuleRecord } from '#shared/model/automation.ts';

/** docs/contract.md#automation-rule (Chatwoot's rule JSON has no created_at/updated_at). */
export const automationRuleJson = (r: AutomationRuleRecord) => ({
  id: r.id,
  account_id: r.account_id,
  name: r.name,
  description: r.description,
  event_name: r.event_name,
  conditions: r.conditions,
  actions: r.actions,
  created_on: r.created_on,
  active: r.active,
});
