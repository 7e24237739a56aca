import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import { TTL_ATTRIBUTE } from '../table.ts';
import { transact } from '../transact.ts';
import type { AutomationEvent } from '#shared/model/automation.ts';
import type { AutomationRuleRecord } from '#shared/model/automation.ts';
import { getItem, queryPrefix, record } from './common.ts';
import { applyChanges, versionedDel, versionedPut, type AttributeChanges } from './versioned.ts';

/** AP94: an automation rule of an account. */
export const getAutomationRule = (accountId: number, id: number, consistent = false) =>
  getItem<AutomationRuleRecord>(keys.automationRule(accountId, id), consistent);

/** AP95: the automation rules of an account, by id. */
export async function listAutomationRules(accountId: number): Promise<AutomationRuleRecord[]> {
  const p = keys.automationRulesOf(accountId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<AutomationRuleRecord>(i)!);
}

/** AP96: the active rules of an account that react to an event, in creation order (gsi1, sparse). */
export async function listActiveAutomationRules(accountId: number, event: AutomationEvent): Promise<AutomationRuleRecord[]> {
  const p = keys.activeAutomationRulesFor(accountId, event);
  return (await queryPrefix({ gsi1pk: p.gsi1pk }, p.skPrefix)).map((i) => record<AutomationRuleRecord>(i)!);
}

const ruleItem = (r: AutomationRuleRecord) => ({
  ...keys.automationRule(r.account_id, r.id),
  ...(r.active ? keys.automationRuleIndex(r.account_id, r.event_name, r.id) : {}),
  type: 'automation_rule',
  ...r,
});

/** Writes a rule (new when `before` is undefined). */
export async function saveAutomationRule(before: AutomationRuleRecord | undefined, after: AutomationRuleRecord): Promise<void> {
  await transact([versionedPut(ruleItem(after), before?.version)]);
}

/**
 * AP94 write without a read-change-write: name and description replaced on the stored item (fields
 * that move the AP96 index, or need the event to be checked, go through saveAutomationRule).
 */
export const changeAutomationRuleAttributes = (accountId: number, id: number, changes: AttributeChanges) =>
  applyChanges<AutomationRuleRecord>(keys.automationRule(accountId, id), changes);

export async function deleteAutomationRule(r: AutomationRuleRecord): Promise<void> {
  await transact([versionedDel(keys.automationRule(r.account_id, r.id), r.version)]);
}

const RULE_RUN_LIFETIME_SECONDS = 7 * 24 * 3600;

/** Claims one (event, rule) run, so a retried dispatch never repeats a rule's actions. */
export async function claimRuleRun(eventId: string, ruleId: number): Promise<boolean> {
  const now = Math.floor(Date.now() / 1000);
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.ruleRun(eventId, ruleId), type: 'rule_run', [TTL_ATTRIBUTE]: now + RULE_RUN_LIFETIME_SECONDS },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}
