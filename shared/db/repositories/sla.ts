import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import { INDEXES } from '../table.ts';
import { del, transact } from '../transact.ts';
import type { AppliedSlaCopy } from '#shared/model/conversations.ts';
import type { AppliedSlaRecord, SlaPolicyRecord } from '#shared/model/sla.ts';
import { getItem, getMany, queryItems, queryPrefix, record, timeRangeQuery } from './common.ts';
import { versionedDel, versionedPut } from './versioned.ts';

// SLA policies in the account's partition; a conversation's applied SLA in the conversation's partition, found
// for the account by creation time through gsi1 (applied_slas reads a range, never the conversations).

/** AP360: an SLA policy of an account. */
export const getSlaPolicy = (accountId: number, id: number, consistent = false) =>
  getItem<SlaPolicyRecord>(keys.slaPolicy(accountId, id), consistent);

/** AP361: the SLA policies of an account, by id. */
export async function listSlaPolicies(accountId: number): Promise<SlaPolicyRecord[]> {
  const p = keys.slaPoliciesOf(accountId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<SlaPolicyRecord>(i)!);
}

/** AP360 for a page: the SLA policies of these ids, in one BatchGet (absent ones left out). */
export async function getSlaPolicies(accountId: number, ids: number[]): Promise<SlaPolicyRecord[]> {
  const found = await getMany<Record<string, unknown>>(ids.map((id) => keys.slaPolicy(accountId, id)));
  return found.map((i) => record<SlaPolicyRecord>(i)).filter((p): p is SlaPolicyRecord => !!p);
}

export async function saveSlaPolicy(before: SlaPolicyRecord | undefined, after: SlaPolicyRecord): Promise<void> {
  await transact([versionedPut({ ...keys.slaPolicy(after.account_id, after.id), type: 'sla_policy', ...after }, before?.version)]);
}

export async function deleteSlaPolicy(p: SlaPolicyRecord): Promise<void> {
  await transact([versionedDel(keys.slaPolicy(p.account_id, p.id), p.version)]);
}

/** AP362: a conversation's applied SLA. */
export const getAppliedSla = (accountId: number, displayId: number, consistent = false) =>
  getItem<AppliedSlaRecord>(keys.appliedSla(accountId, displayId), consistent);

/** A new applied SLA (only where the conversation has none) or its next version. */
export async function saveAppliedSla(before: AppliedSlaRecord | undefined, after: AppliedSlaRecord): Promise<void> {
  const item = {
    ...keys.appliedSla(after.account_id, after.conversation_id),
    ...keys.appliedSlaIndex(after.account_id, after.created_at, after.conversation_id),
    type: 'applied_sla',
    ...after,
  };
  await transact([versionedPut(item, before?.version)]);
}

/** A deleted conversation's applied SLA goes with it (as Chatwoot destroys it). */
export async function deleteAppliedSla(accountId: number, displayId: number): Promise<void> {
  await transact([{ item: del(keys.appliedSla(accountId, displayId)) }]);
}

export interface AppliedSlaFilter {
  since?: number;
  until?: number;
  inboxId?: number;
  slaPolicyId?: number;
}

/**
 * AP363: an account's applied SLAs created in [since, until], oldest first, those matching the filter (a DynamoDB
 * filter on the index's items: the reads are the range's applied SLAs).
 */
export async function listAppliedSlas(accountId: number, f: AppliedSlaFilter): Promise<AppliedSlaRecord[]> {
  const query = timeRangeQuery({
    pk: ['gsi1pk', keys.appliedSlasPartition(accountId)],
    sk: ['gsi1sk', keys.appliedSlaSk],
    since: f.since,
    until: f.until,
    equal: { inbox_id: f.inboxId, sla_policy_id: f.slaPolicyId },
  });
  const items = await queryItems({ IndexName: INDEXES.gsi1.name, ...query });
  return items.map((i) => record<AppliedSlaRecord>(i)!);
}

/**
 * AP364: the conversation item's copy of its applied SLA, written while the conversation still has that policy. The
 * version moves, so a writer holding the conversation read before rereads it rather than put back an older copy.
 * False when the conversation is gone or has another policy now.
 */
export async function setConversationSlaCopy(accountId: number, displayId: number, copy: AppliedSlaCopy): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.conversation(accountId, displayId),
        UpdateExpression: 'SET #a = :a, #v = #v + :one',
        ConditionExpression: 'attribute_exists(#v) AND #p = :p',
        ExpressionAttributeNames: { '#a': 'applied_sla', '#v': 'version', '#p': 'sla_policy_id' },
        ExpressionAttributeValues: { ':a': copy, ':one': 1, ':p': copy.sla_policy_id },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}
