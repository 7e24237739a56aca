import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import type { Key } from '../keys.ts';
import { del, put, transact, type TxItem } from '../transact.ts';
import { taken } from '#shared/errors.ts';
import type { ArticleRecord, CategoryRecord, PortalRecord } from '#shared/model/help-center.ts';
import { getItem, queryPrefix, record } from './common.ts';
import { versionedDel, versionedPut } from './versioned.ts';

// The help center's access patterns. An account's portals share one partition; a portal's categories and
// articles share another (the portal's pages and lists read it with one Query). Slugs and custom domains
// are claimed by uniqueness sentinels, which the public pages also read to find what a path names.

interface Sentinel {
  account_id?: number;
  owner_id: number;
}

const sentinel = (key: Key, field: string, accountId: number, ownerId: number): TxItem => ({
  item: put({ ...key, type: 'unique', account_id: accountId, owner_id: ownerId }, { ifNew: true }),
  onConflict: () => taken(field),
});

/** Moves a sentinel when its value changed (claiming the new one first fails the whole write when taken). */
function moveSentinel(items: TxItem[], before: Key | undefined, after: Key | undefined, field: string, accountId: number, ownerId: number) {
  if (before?.pk === after?.pk) return;
  if (before) items.push({ item: del(before) });
  if (after) items.push(sentinel(after, field, accountId, ownerId));
}

// ── portals ──

const portalItem = (p: PortalRecord) => ({ ...keys.portal(p.account_id, p.id), type: 'portal', ...p });
const domainKey = (p: PortalRecord | undefined) => (p?.custom_domain ? keys.portalDomainUnique(p.custom_domain) : undefined);

/** AP330. */
export const getPortal = (accountId: number, id: number, consistent = false) =>
  getItem<PortalRecord>(keys.portal(accountId, id), consistent);

/** AP331. */
export async function listPortals(accountId: number): Promise<PortalRecord[]> {
  const p = keys.portalsOf(accountId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<PortalRecord>(i)!);
}

/** AP332: who holds a portal slug (the account's routes and the public pages name portals by slug). */
export const portalBySlug = (slug: string) => getItem<Sentinel>(keys.portalSlugUnique(slug));

/** AP332: who holds a custom domain. */
export const portalByDomain = (domain: string) => getItem<Sentinel>(keys.portalDomainUnique(domain));

/** Writes a portal (new when `before` is undefined), moving its slug's and domain's sentinels. */
export async function savePortal(before: PortalRecord | undefined, after: PortalRecord): Promise<void> {
  const items: TxItem[] = [versionedPut(portalItem(after), before?.version)];
  moveSentinel(items, before && keys.portalSlugUnique(before.slug), keys.portalSlugUnique(after.slug), 'slug', after.account_id, after.id);
  moveSentinel(items, domainKey(before), domainKey(after), 'custom_domain', after.account_id, after.id);
  await transact(items);
}

// ── categories and articles (one partition per portal) ──

const categoryItem = (c: CategoryRecord) => ({ ...keys.category(c.account_id, c.portal_id, c.id), type: 'hc_category', ...c });
const articleItem = (a: ArticleRecord) => ({ ...keys.article(a.account_id, a.portal_id, a.id), type: 'hc_article', ...a });
const categorySlugKey = (c: CategoryRecord) => keys.categorySlugUnique(c.portal_id, c.locale, c.slug);

/** AP333. */
export const getCategory = (accountId: number, portalId: number, id: number, consistent = false) =>
  getItem<CategoryRecord>(keys.category(accountId, portalId, id), consistent);

/** AP333. */
export const getArticle = (accountId: number, portalId: number, id: number, consistent = false) =>
  getItem<ArticleRecord>(keys.article(accountId, portalId, id), consistent);

/** AP335: who holds an article slug in a portal. */
export const articleBySlug = (portalId: number, slug: string) => getItem<Sentinel>(keys.articleSlugUnique(portalId, slug));

/** AP334. */
export async function listCategories(accountId: number, portalId: number): Promise<CategoryRecord[]> {
  const p = keys.categoriesOf(accountId, portalId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<CategoryRecord>(i)!);
}

/** AP334. */
export async function listArticles(accountId: number, portalId: number): Promise<ArticleRecord[]> {
  const p = keys.articlesOf(accountId, portalId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<ArticleRecord>(i)!);
}

export async function saveCategory(before: CategoryRecord | undefined, after: CategoryRecord): Promise<void> {
  const items: TxItem[] = [versionedPut(categoryItem(after), before?.version)];
  moveSentinel(items, before && categorySlugKey(before), categorySlugKey(after), 'slug', after.account_id, after.id);
  await transact(items);
}

export async function saveArticle(before: ArticleRecord | undefined, after: ArticleRecord): Promise<void> {
  const items: TxItem[] = [versionedPut(articleItem(after), before?.version)];
  moveSentinel(
    items,
    before && keys.articleSlugUnique(before.portal_id, before.slug),
    keys.articleSlugUnique(after.portal_id, after.slug),
    'slug',
    after.account_id,
    after.id,
  );
  await transact(items);
}

/** Several writes of one portal's records at once (a reorder, a category's removal), each on its version. */
export async function saveAll(changes: { before: CategoryRecord | ArticleRecord; after: CategoryRecord | ArticleRecord }[]): Promise<void> {
  const items = changes.map(({ before, after }) =>
    versionedPut('author_id' in after ? articleItem(after) : categoryItem(after as CategoryRecord), before.version),
  );
  // A transaction holds at most 100 items; a reorder of more goes in chunks (each chunk all or nothing).
  for (let i = 0; i < items.length; i += 100) await transact(items.slice(i, i + 100));
}

export async function deleteCategory(c: CategoryRecord): Promise<void> {
  await transact([versionedDel(keys.category(c.account_id, c.portal_id, c.id), c.version), { item: del(categorySlugKey(c)) }]);
}

export async function deleteArticle(a: ArticleRecord): Promise<void> {
  await transact([
    versionedDel(keys.article(a.account_id, a.portal_id, a.id), a.version),
    { item: del(keys.articleSlugUnique(a.portal_id, a.slug)) },
  ]);
}

/** The sentinels a portal's partition item owns (the portal's deletion and the account purge remove them). */
export function helpCenterSentinels(i: Record<string, unknown>): Key[] {
  if (i.type === 'hc_category') return [categorySlugKey(i as unknown as CategoryRecord)];
  if (i.type === 'hc_article') return [keys.articleSlugUnique(Number(i.portal_id), String(i.slug))];
  if (i.type === 'portal') {
    const p = i as unknown as PortalRecord;
    return [keys.portalSlugUnique(p.slug), ...(p.custom_domain ? [keys.portalDomainUnique(p.custom_domain)] : [])];
  }
  return [];
}

/**
 * Removes a portal: its categories and articles with their sentinels first, in transactions of up to 100
 * items, then the portal and its own sentinels (a failure midway leaves the portal, so a retry finishes).
 */
export async function deletePortal(p: PortalRecord): Promise<void> {
  const [categories, articles] = [keys.categoriesOf(p.account_id, p.id), keys.articlesOf(p.account_id, p.id)];
  const items = (
    await Promise.all([queryPrefix({ pk: categories.pk }, categories.skPrefix), queryPrefix({ pk: articles.pk }, articles.skPrefix)])
  ).flat();
  const writes: TxItem[] = items.flatMap((i) => [
    { item: del({ pk: String(i.pk), sk: String(i.sk) }) },
    ...helpCenterSentinels(i).map((k) => ({ item: del(k) })),
  ]);
  for (let i = 0; i < writes.length; i += 100) await transact(writes.slice(i, i + 100));
  await transact([
    versionedDel(keys.portal(p.account_id, p.id), p.version),
    ...helpCenterSentinels(portalItem(p)).map((k) => ({ item: del(k) })),
  ]);
}

/** AP336: counts one view of an article (an atomic add; a deleted article is left alone). */
export async function countArticleView(a: ArticleRecord): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.article(a.account_id, a.portal_id, a.id),
        UpdateExpression: 'ADD #v :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#v': 'views' },
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
  }
}
