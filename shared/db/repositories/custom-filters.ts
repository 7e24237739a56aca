import * as keys from '../keys.ts';
import { transact, type TxItem } from '../transact.ts';
import type { CustomFilterRecord, FilterType } from '#shared/model/custom-filters.ts';
import { getItem, queryPrefix, record } from './common.ts';
import { applyChanges, versionedDel, versionedPut } from './versioned.ts';

/** AP92: one of a user's custom filters. */
export const getCustomFilter = (accountId: number, userId: number, id: number, consistent = false) =>
  getItem<CustomFilterRecord>(keys.customFilter(accountId, userId, id), consistent);

/** AP93: a user's custom filters of one type, by id (gsi1). */
export async function listCustomFilters(accountId: number, userId: number, filterType: FilterType): Promise<CustomFilterRecord[]> {
  const p = keys.customFiltersOf(accountId, userId, filterType);
  return (await queryPrefix({ gsi1pk: p.gsi1pk }, p.skPrefix)).map((i) => record<CustomFilterRecord>(i)!);
}

const filterItem = (f: CustomFilterRecord) => ({
  ...keys.customFilter(f.account_id, f.user_id, f.id),
  ...keys.customFilterIndex(f.account_id, f.user_id, f.filter_type, f.id),
  type: 'custom_filter',
  ...f,
});

/** The user's filter count moves with each create and delete, so the limit holds under concurrency. */
function countChange(accountId: number, userId: number, delta: 1 | -1, max?: number, onLimit?: () => Error): TxItem {
  return {
    item: {
      Update: {
        TableName: '',
        Key: keys.customFilterCount(accountId, userId),
        UpdateExpression: 'ADD #n :d SET #t = :t',
        ...(max !== undefined ? { ConditionExpression: 'attribute_not_exists(#n) OR #n < :max' } : {}),
        ExpressionAttributeNames: { '#n': 'count', '#t': 'type' },
        ExpressionAttributeValues: { ':d': delta, ':t': 'custom_filter_count', ...(max !== undefined ? { ':max': max } : {}) },
      },
    },
    onConflict: onLimit,
  };
}

/** A new filter, refused by `onLimit` when the user already has `max`. */
export async function createCustomFilter(f: CustomFilterRecord, max: number, onLimit: () => Error): Promise<void> {
  await transact([versionedPut(filterItem(f)), countChange(f.account_id, f.user_id, 1, max, onLimit)]);
}

export async function updateCustomFilter(before: CustomFilterRecord, after: CustomFilterRecord): Promise<void> {
  await transact([versionedPut(filterItem(after), before.version)]);
}

/**
 * AP92 write: the given fields replaced on the stored item, the AP93 index keys moving with the filter
 * type (no read, so concurrent edits never conflict); undefined when the filter is gone.
 */
export const changeCustomFilterAttributes = (accountId: number, userId: number, id: number, set: Partial<CustomFilterRecord>) =>
  applyChanges<CustomFilterRecord>(keys.customFilter(accountId, userId, id), {
    set: { ...set, ...(set.filter_type ? keys.customFilterIndex(accountId, userId, set.filter_type, id) : {}) },
  });

export async function deleteCustomFilter(f: CustomFilterRecord): Promise<void> {
  await transact([versionedDel(keys.customFilter(f.account_id, f.user_id, f.id), f.version), countChange(f.account_id, f.user_id, -1)]);
}
