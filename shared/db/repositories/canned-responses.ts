import * as keys from '../keys.ts';
import { del, put, transact, type TxItem } from '../transact.ts';
import type { CannedResponseRecord } from '#shared/model/canned-responses.ts';
import { taken } from '#shared/errors.ts';
import { getItem, queryPrefix, record } from './common.ts';
import { versionedDel, versionedPut } from './versioned.ts';

/** AP112: a canned response of an account. */
export const getCannedResponse = (accountId: number, id: number, consistent = false) =>
  getItem<CannedResponseRecord>(keys.cannedResponse(accountId, id), consistent);

/** AP113: the canned responses of an account, by id (`search` filters these in memory). */
export async function listCannedResponses(accountId: number): Promise<CannedResponseRecord[]> {
  const p = keys.cannedResponsesOf(accountId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<CannedResponseRecord>(i)!);
}

const item = (c: CannedResponseRecord) => ({ ...keys.cannedResponse(c.account_id, c.id), type: 'canned_response', ...c });

/** Writes a canned response (new when `before` is undefined), moving its short code's sentinel. */
export async function saveCannedResponse(before: CannedResponseRecord | undefined, after: CannedResponseRecord): Promise<void> {
  const items: TxItem[] = [versionedPut(item(after), before?.version)];
  if (before?.short_code !== after.short_code) {
    if (before) items.push({ item: del(keys.shortCodeUnique(before.account_id, before.short_code)) });
    items.push({
      item: put({ ...keys.shortCodeUnique(after.account_id, after.short_code), type: 'unique', owner_id: after.id }, { ifNew: true }),
      onConflict: () => taken('short_code'),
    });
  }
  await transact(items);
}

export async function deleteCannedResponse(c: CannedResponseRecord): Promise<void> {
  await transact([
    versionedDel(keys.cannedResponse(c.account_id, c.id), c.version),
    { item: del(keys.shortCodeUnique(c.account_id, c.short_code)) },
  ]);
}
