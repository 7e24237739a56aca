import * as keys from '../keys.ts';
import { del, put, transact, type TxItem } from '../transact.ts';
import type { LabelRecord } from '#shared/model/labels.ts';
import { taken } from '#shared/errors.ts';
import { getItem, queryPrefix, record } from './common.ts';
import { applyChanges, versionedDel, versionedPut, type AttributeChanges } from './versioned.ts';

/** AP90: a label of an account. */
export const getLabel = (accountId: number, id: number, consistent = false) => getItem<LabelRecord>(keys.label(accountId, id), consistent);

/** AP91: the labels of an account, by id. */
export async function listLabels(accountId: number): Promise<LabelRecord[]> {
  const p = keys.labelsOf(accountId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<LabelRecord>(i)!);
}

const labelItem = (l: LabelRecord) => ({ ...keys.label(l.account_id, l.id), type: 'label', ...l });

const titleSentinel = (l: LabelRecord): TxItem => ({
  item: put({ ...keys.labelTitleUnique(l.account_id, l.title), type: 'unique', owner_id: l.id }, { ifNew: true }),
  onConflict: () => taken('title'),
});

/** Writes a label (new when `before` is undefined), moving its title's uniqueness sentinel. */
export async function saveLabel(before: LabelRecord | undefined, after: LabelRecord): Promise<void> {
  const items: TxItem[] = [versionedPut(labelItem(after), before?.version)];
  if (before?.title !== after.title) {
    if (before) items.push({ item: del(keys.labelTitleUnique(before.account_id, before.title)) });
    items.push(titleSentinel(after));
  }
  await transact(items);
}

/** AP90 write without a read-change-write: fields other than the (unique) title replaced on the stored item. */
export const changeLabelAttributes = (accountId: number, id: number, changes: AttributeChanges) =>
  applyChanges<LabelRecord>(keys.label(accountId, id), changes);

export async function deleteLabel(l: LabelRecord): Promise<void> {
  await transact([versionedDel(keys.label(l.account_id, l.id), l.version), { item: del(keys.labelTitleUnique(l.account_id, l.title)) }]);
}
