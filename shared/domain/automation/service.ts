import { nextId } from '#shared/db/ids.ts';
import * as repo from '#shared/db/repositories/automation-rules.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import { notFound, unprocessable } from '#shared/errors.ts';
import { now } from '#shared/model/time.ts';
import { checkRule } from './catalog.ts';
import type { AutomationEvent } from '#shared/model/automation.ts';
import type { AutomationRuleRecord } from '#shared/model/automation.ts';
import type { AutomationRuleUpdate, NewAutomationRule } from './schemas.ts';
import { automationRuleJson } from './view.ts';

async function requireRule(accountId: number, id: number, consistent = false): Promise<AutomationRuleRecord> {
  const r = await repo.getAutomationRule(accountId, id, consistent);
  if (!r) throw notFound('Automation rule');
  return r;
}

/** Conditions and actions in their stored form, or 422 naming every offending path. */
function checked(event: AutomationEvent, conditions: unknown[], actions: unknown[]) {
  const out = checkRule(event, conditions, actions);
  if (out.problems.length) throw unprocessable(out.problems);
  return out;
}

export async function listAutomationRules(accountId: number) {
  return { payload: (await repo.listAutomationRules(accountId)).map(automationRuleJson) };
}

/** Contract endpoint 7 (docs/contract.md#endpoints). */
export async function showAutomationRule(accountId: number, id: number) {
  return { payload: automationRuleJson(await requireRule(accountId, id)) };
}

/** Chatwoot answers create with the bare rule (every other action wraps it in `payload`). */
export async function createAutomationRule(accountId: number, input: NewAutomationRule) {
  const { conditions, actions } = checked(input.event_name, input.conditions, input.actions);
  const t = now();
  const rule: AutomationRuleRecord = {
    id: await nextId('automation_rule'),
    account_id: accountId,
    name: input.name,
    description: input.description ?? null,
    event_name: input.event_name,
    conditions,
    actions,
    active: input.active ?? true,
    created_on: t,
    updated_at: t,
    version: 1,
  };
  await repo.saveAutomationRule(undefined, rule);
  return automationRuleJson(rule);
}

export async function updateAutomationRule(accountId: number, id: number, input: AutomationRuleUpdate) {
  return retryStale(async (consistent) => {
    if (input.event_name === undefined && input.conditions === undefined && input.actions === undefined && input.active === undefined) {
      // Name and description are replaced as sent (the last writer wins), on the stored item.
      const set = { name: input.name ?? undefined, description: input.description, updated_at: now() };
      const saved = await repo.changeAutomationRuleAttributes(accountId, id, { set });
      if (!saved) throw notFound('Automation rule');
      return { payload: automationRuleJson(saved) };
    }
    const before = await requireRule(accountId, id, consistent);
    const event = input.event_name ?? before.event_name;
    // Stored conditions are checked again when only the event changes (attribute_changed is per event).
    const { conditions, actions } = checked(event, input.conditions ?? before.conditions, input.actions ?? before.actions);
    const after: AutomationRuleRecord = {
      ...before,
      name: input.name ?? before.name,
      description: input.description !== undefined ? input.description : before.description,
      event_name: event,
      conditions,
      actions,
      active: input.active ?? before.active,
      updated_at: now(),
      version: before.version + 1,
    };
    await repo.saveAutomationRule(before, after);
    return { payload: automationRuleJson(after) };
  });
}

/** A copy under the same name (Chatwoot duplicates the row as is). */
export async function cloneAutomationRule(accountId: number, id: number) {
  const source = await requireRule(accountId, id);
  const t = now();
  const copy: AutomationRuleRecord = { ...source, id: await nextId('automation_rule'), created_on: t, updated_at: t, version: 1 };
  await repo.saveAutomationRule(undefined, copy);
  return { payload: automationRuleJson(copy) };
}

export async function deleteAutomationRule(accountId: number, id: number): Promise<void> {
  await retryStale(async (consistent) => repo.deleteAutomationRule(await requireRule(accountId, id, consistent)));
}
