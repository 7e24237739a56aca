import * as keys from '../keys.ts';
import { check, del, put, transact, type TxItem } from '../transact.ts';
import type { HookRecord } from '#shared/model/integrations.ts';
import { notFound, taken } from '#shared/errors.ts';
import { getItem, queryPrefix, record } from './common.ts';
import { openAll, openFields, sealFields } from '#shared/crypto/secret-fields.ts';
import { versionedDel, versionedPut } from './versioned.ts';

/** AP115: an integration hook of an account. */
export const getHook = async (accountId: number, id: number, consistent = false) =>
  openFields('integration_hook', await getItem<HookRecord>(keys.integrationHook(accountId, id), consistent));

/** AP116: the integration hooks of an account, by id. */
export async function listHooks(accountId: number): Promise<HookRecord[]> {
  const p = keys.integrationHooksOf(accountId);
  return openAll(
    'integration_hook',
    (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<HookRecord>(i)!),
  );
}

// API keys, tokens and credentials are sealed at rest (shared/crypto/secret-fields.ts).
const hookItem = async (h: HookRecord) => ({
  ...keys.integrationHook(h.account_id, h.id),
  type: 'integration_hook',
  ...(await sealFields('integration_hook', h)),
});

/**
 * A new hook: for an app that allows one hook per account its sentinel refuses a second; an inbox hook
 * is written only while its inbox exists.
 */
export async function createHook(h: HookRecord, single: boolean): Promise<void> {
  const items: TxItem[] = [versionedPut(await hookItem(h))];
  if (single) {
    items.push({
      item: put({ ...keys.integrationHookAppUnique(h.account_id, h.app_id), type: 'unique', owner_id: h.id }, { ifNew: true }),
      onConflict: () => taken('app_id'),
    });
  }
  if (h.inbox_id !== null) {
    items.push({
      item: check(keys.inbox(h.account_id, h.inbox_id), { expression: 'attribute_exists(pk)' }),
      onConflict: () => notFound('Inbox'),
    });
  }
  await transact(items);
}

export async function updateHook(before: HookRecord, after: HookRecord): Promise<void> {
  await transact([versionedPut(await hookItem(after), before.version)]);
}

export async function deleteHook(h: HookRecord): Promise<void> {
  await transact([
    versionedDel(keys.integrationHook(h.account_id, h.id), h.version),
    { item: del(keys.integrationHookAppUnique(h.account_id, h.app_id)) },
  ]);
}
