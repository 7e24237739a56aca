import * as keys from '../keys.ts';
import { del, put, transact, type TxItem } from '../transact.ts';
import type { AttributeDefinitionRecord } from '#shared/model/custom-attributes.ts';
import { taken } from '#shared/errors.ts';
import { getItem, queryPrefix, record } from './common.ts';
import { versionedDel, versionedPut } from './versioned.ts';

/** AP110: a custom attribute definition of an account. */
export const getAttributeDefinition = (accountId: number, id: number, consistent = false) =>
  getItem<AttributeDefinitionRecord>(keys.attributeDefinition(accountId, id), consistent);

/** AP111: the custom attribute definitions of an account, by id (both models: an account holds few). */
export async function listAttributeDefinitions(accountId: number): Promise<AttributeDefinitionRecord[]> {
  const p = keys.attributeDefinitionsOf(accountId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<AttributeDefinitionRecord>(i)!);
}

const definitionItem = (d: AttributeDefinitionRecord) => ({
  ...keys.attributeDefinition(d.account_id, d.id),
  type: 'custom_attribute_definition',
  ...d,
});
const keyOf = (d: AttributeDefinitionRecord) => keys.attributeKeyUnique(d.account_id, d.attribute_model, d.attribute_key);

/** Writes a definition (new when `before` is undefined), moving its key-per-model sentinel when either changes. */
export async function saveAttributeDefinition(
  before: AttributeDefinitionRecord | undefined,
  after: AttributeDefinitionRecord,
): Promise<void> {
  const items: TxItem[] = [versionedPut(definitionItem(after), before?.version)];
  const moved = !before || before.attribute_key !== after.attribute_key || before.attribute_model !== after.attribute_model;
  if (moved) {
    if (before) items.push({ item: del(keyOf(before)) });
    items.push({
      item: put({ ...keyOf(after), type: 'unique', owner_id: after.id }, { ifNew: true }),
      onConflict: () => taken('attribute_key'),
    });
  }
  await transact(items);
}

export async function deleteAttributeDefinition(d: AttributeDefinitionRecord): Promise<void> {
  await transact([versionedDel(keys.attributeDefinition(d.account_id, d.id), d.version), { item: del(keyOf(d)) }]);
}
