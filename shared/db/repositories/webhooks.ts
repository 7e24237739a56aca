import { createHash } from 'node:crypto';
import * as keys from '../keys.ts';
import { del, put, transact, type TxItem } from '../transact.ts';
import type { WebhookRecord } from '#shared/model/webhooks.ts';
import { taken } from '#shared/errors.ts';
import { getItem, queryPrefix, record } from './common.ts';
import { openAll, openFields, sealFields } from '#shared/crypto/secret-fields.ts';
import { applyChanges, versionedDel, versionedPut, type AttributeChanges } from './versioned.ts';

/** AP97: a webhook of an account. */
export const getWebhook = async (accountId: number, id: number, consistent = false) =>
  openFields('webhook', await getItem<WebhookRecord>(keys.webhook(accountId, id), consistent));

/** AP98: the webhooks of an account (the dispatcher's receivers), by id. */
export async function listWebhooks(accountId: number): Promise<WebhookRecord[]> {
  const p = keys.webhooksOf(accountId);
  return openAll(
    'webhook',
    (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<WebhookRecord>(i)!),
  );
}

/** Scheme and host case, default ports and an empty path do not make a URL different. */
export const webhookUrlKey = (accountId: number, url: string) =>
  keys.webhookUrlUnique(accountId, createHash('sha256').update(new URL(url).href).digest('hex'));

const webhookItem = async (w: WebhookRecord) => ({
  ...keys.webhook(w.account_id, w.id),
  type: 'webhook',
  ...(await sealFields('webhook', w)),
});

/** Writes a webhook (new when `before` is undefined), moving its URL's uniqueness sentinel. */
export async function saveWebhook(before: WebhookRecord | undefined, after: WebhookRecord): Promise<void> {
  const items: TxItem[] = [versionedPut(await webhookItem(after), before?.version)];
  const [oldKey, newKey] = [before && webhookUrlKey(before.account_id, before.url), webhookUrlKey(after.account_id, after.url)];
  if (oldKey?.pk !== newKey.pk) {
    if (oldKey) items.push({ item: del(oldKey) });
    items.push({ item: put({ ...newKey, type: 'unique', owner_id: after.id }, { ifNew: true }), onConflict: () => taken('url') });
  }
  await transact(items);
}

/** AP97 write without a read-change-write: fields other than the (unique) URL replaced on the stored item. */
export const changeWebhookAttributes = async (accountId: number, id: number, changes: AttributeChanges) =>
  openFields(
    'webhook',
    await applyChanges<WebhookRecord>(keys.webhook(accountId, id), { ...changes, set: await sealFields('webhook', changes.set) }),
  );

export async function deleteWebhook(w: WebhookRecord): Promise<void> {
  await transact([versionedDel(keys.webhook(w.account_id, w.id), w.version), { item: del(webhookUrlKey(w.account_id, w.url)) }]);
}
