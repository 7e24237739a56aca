import { nextId } from '#shared/db/ids.ts';
import * as repo from '#shared/db/repositories/help-center.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import { getMembershipFresh } from '#shared/db/repositories/agents.ts';
import { invalidField, notFound, unprocessable } from '#shared/errors.ts';
import { log } from '#shared/log.ts';
import { deleteObjects } from '#shared/storage/objects.ts';
import { accountBlob } from '#shared/storage/uploads.ts';
import type { Actor } from '#shared/model/actor.ts';
import type { ArticleRecord, CategoryRecord, PortalConfig, PortalLogo, PortalRecord } from '#shared/model/help-center.ts';
import { agentsJson } from '../agents/view.ts';
import type { ArticleUpdate, NewArticle } from './article-schemas.ts';
import type { CategoryUpdate, NewCategory } from './category-schemas.ts';
import type { NewPortal, PortalUpdate } from './portal-schemas.ts';
import type { Reorder } from './schemas.ts';
import { articleJson, byPosition, categoryJson, portalJson, searchArticleJson, type ArticleContext } from './view.ts';
import { matchesQuery, parameterize, searchTerms } from './text.ts';
import { pageNumber } from '../paging.ts';

// The help center (Chatwoot's portals, categories and articles controllers and models): portals named by
// slug, their categories per locale, and Markdown articles (draft, published, archived) by an agent of the
// account. Administrators write, every member reads (the handlers' access).

const iso = () => new Date().toISOString();
const userIdOf = (actor: Actor) => (actor.type === 'user' ? actor.user.id : undefined);

/** Kaminari's default page, as Chatwoot's lists. */
export const HELP_CENTER_PAGE_SIZE = 25;

// ── portals ──

/** The account's portal a slug names, or 404 (a slug another account holds is as absent as none). */
export async function requirePortal(accountId: number, slug: string | undefined, consistent = false): Promise<PortalRecord> {
  if (!slug || slug.length > 255) throw notFound('Portal');
  const owner = await repo.portalBySlug(slug);
  const portal = owner && owner.account_id === accountId ? await repo.getPortal(accountId, owner.owner_id, consistent) : undefined;
  if (!portal) throw notFound('Portal');
  return portal;
}

/** Chatwoot's normalize_config: the allowed locales (the default one when none), and a default among them. */
export function normalizeConfig(input: Partial<PortalConfig> | undefined, before?: PortalConfig): PortalConfig {
  const allowed = [...new Set(input?.allowed_locales ?? before?.allowed_locales ?? [])];
  const wanted = input?.default_locale ?? (allowed.includes(before?.default_locale ?? '') ? before?.default_locale : undefined);
  const default_locale = wanted ?? allowed[0] ?? 'en';
  if (!allowed.length) allowed.push(default_locale);
  if (!allowed.includes(default_locale)) throw invalidField('config.default_locale', `${default_locale} is not one of the allowed locales`);
  return { allowed_locales: allowed, default_locale };
}

async function portalContent(p: PortalRecord) {
  const [allArticles, categories] = await Promise.all([repo.listArticles(p.account_id, p.id), repo.listCategories(p.account_id, p.id)]);
  return { allArticles, categories };
}

async function renderPortal(p: PortalRecord, actor?: Actor, locale?: string) {
  const { allArticles, categories } = await portalContent(p);
  const articles = locale ? allArticles.filter((a) => a.locale === locale) : allArticles;
  return portalJson(p, { articles, allArticles, categories }, actor && userIdOf(actor));
}

export async function listPortals(accountId: number, actor: Actor, query: Record<string, string | undefined>) {
  const portals = (await repo.listPortals(accountId)).sort((a, b) => a.id - b.id);
  return {
    payload: await Promise.all(portals.map((p) => renderPortal(p, actor))),
    meta: { current_page: pageNumber(query.page), portals_count: portals.length },
  };
}

export async function showPortal(accountId: number, actor: Actor, slug: string, locale: string | undefined) {
  return renderPortal(await requirePortal(accountId, slug), actor, locale || undefined);
}

/**
 * The logo a body's `blob_id` names: an upload of this account whose file is still stored (Chatwoot's
 * `process_attached_logo`, which finds any blob; here another account's, a changed or an unknown id is 422).
 */
async function logoOf(accountId: number, blobId: string | null | undefined): Promise<PortalLogo | undefined> {
  if (!blobId) return undefined;
  const blob = await accountBlob(accountId, blobId);
  if (!blob) throw invalidField('blob_id', 'is not an upload of this account', 'not_found');
  return { id: await nextId('attachment'), ...blob, blob_id: blobId };
}

/**
 * Deletes a logo's file once no record names it (the record is written first, so a failure here leaves a file
 * nothing shows, never a logo without its file); logged, not thrown: the change the caller made stands.
 */
async function dropLogoFile(logo: PortalLogo | null | undefined, kept?: PortalLogo | null) {
  if (!logo || logo.key === kept?.key) return;
  await deleteObjects([logo.key]).catch((error) => log.warn('portal logo file not deleted', { key: logo.key, error }));
}

export async function createPortal(accountId: number, actor: Actor, input: NewPortal) {
  const logo = await logoOf(accountId, input.blob_id);
  const t = iso();
  const p: PortalRecord = {
    id: await nextId('portal'),
    account_id: accountId,
    name: input.name,
    slug: input.slug,
    custom_domain: input.custom_domain ?? null,
    color: input.color ?? null,
    homepage_link: input.homepage_link ?? null,
    page_title: input.page_title ?? null,
    header_text: input.header_text ?? null,
    archived: input.archived ?? false,
    config: normalizeConfig(input.config),
    logo: logo ?? null,
    created_at: t,
    updated_at: t,
    version: 1,
  };
  await repo.savePortal(undefined, p);
  return portalJson(p, { articles: [], allArticles: [], categories: [] }, userIdOf(actor));
}

export async function updatePortal(accountId: number, actor: Actor, slug: string, input: PortalUpdate) {
  const logo = await logoOf(accountId, input.blob_id);
  let replaced: PortalLogo | null | undefined;
  const after = await retryStale(async (consistent) => {
    const before = await requirePortal(accountId, slug, consistent);
    const next: PortalRecord = {
      ...before,
      name: input.name ?? before.name,
      slug: input.slug ?? before.slug,
      custom_domain: input.custom_domain === undefined ? before.custom_domain : input.custom_domain,
      color: input.color === undefined ? before.color : input.color,
      homepage_link: input.homepage_link === undefined ? before.homepage_link : input.homepage_link,
      page_title: input.page_title === undefined ? before.page_title : input.page_title,
      header_text: input.header_text === undefined ? before.header_text : input.header_text,
      archived: input.archived ?? before.archived,
      config: input.config ? normalizeConfig(input.config, before.config) : before.config,
      logo: logo ?? before.logo ?? null,
      updated_at: iso(),
      version: before.version + 1,
    };
    await repo.savePortal(before, next);
    replaced = before.logo;
    return next;
  });
  // A new logo replaces the old one, whose file goes (ActiveStorage purges a replaced attachment's blob).
  if (logo) await dropLogoFile(replaced, logo);
  return renderPortal(after, actor);
}

export async function archivePortal(accountId: number, slug: string): Promise<void> {
  await retryStale(async (consistent) => {
    const before = await requirePortal(accountId, slug, consistent);
    if (before.archived) return;
    await repo.savePortal(before, { ...before, archived: true, updated_at: iso(), version: before.version + 1 });
  });
}

export async function deletePortal(accountId: number, slug: string): Promise<void> {
  const gone = await retryStale(async (consistent) => {
    const p = await requirePortal(accountId, slug, consistent);
    await repo.deletePortal(p);
    return p;
  });
  await dropLogoFile(gone.logo);
}

/** `DELETE …/logo`: the portal forgets its logo and the file goes (Chatwoot's `logo.purge`); none is no error. */
export async function deletePortalLogo(accountId: number, slug: string): Promise<void> {
  const removed = await retryStale(async (consistent) => {
    const before = await requirePortal(accountId, slug, consistent);
    if (!before.logo) return undefined;
    await repo.savePortal(before, { ...before, logo: null, updated_at: iso(), version: before.version + 1 });
    return before.logo;
  });
  await dropLogoFile(removed);
}

/**
 * `GET …/ssl_status`: Chatwoot asks Cloudflare about the custom domain's certificate. This deployment
 * provisions no certificates for custom domains (they are the operator's, in front of the service), so it
 * says that, as Chatwoot does without a Cloudflare configuration.
 */
export async function portalSslStatus(accountId: number, slug: string): Promise<never> {
  const portal = await requirePortal(accountId, slug);
  if (!portal.custom_domain) throw invalidField('custom_domain', 'Custom domain is not configured', 'not_configured');
  throw unprocessable(
    [
      {
        field: 'custom_domain',
        message: `The certificate of ${portal.custom_domain} is not managed by this deployment: point the domain at the service through your own TLS-terminating proxy or CDN`,
        code: 'not_managed',
      },
    ],
    'SSL status is not available',
  );
}

// ── categories ──

async function requireCategory(p: PortalRecord, id: number, consistent = false) {
  const c = await repo.getCategory(p.account_id, p.id, id, consistent);
  if (!c) throw notFound('Category');
  return c;
}

function checkLocale(p: PortalRecord, locale: string) {
  if (!p.config.allowed_locales.includes(locale)) {
    throw invalidField('locale', `${locale} of category is not part of portal's [${p.config.allowed_locales.join(', ')}]`);
  }
}

/** A category id the body names must be another category of the portal. */
function checkCategoryRef(all: CategoryRecord[], field: string, id: number | null | undefined, self?: number) {
  if (id == null) return;
  if (id === self || !all.some((c) => c.id === id)) throw invalidField(field, 'is not a category of this portal');
}

export async function listCategories(accountId: number, slug: string, query: Record<string, string | undefined>) {
  const p = await requirePortal(accountId, slug);
  const all = await repo.listCategories(accountId, p.id);
  const shown = all.filter((c) => !query.locale || c.locale === query.locale).sort(byPosition);
  return {
    payload: shown.map((c) => categoryJson(c, all)),
    meta: { current_page: pageNumber(query.page), categories_count: shown.length },
  };
}

export async function showCategory(accountId: number, slug: string, id: number) {
  const p = await requirePortal(accountId, slug);
  const [c, all] = await Promise.all([requireCategory(p, id), repo.listCategories(accountId, p.id)]);
  return { payload: categoryJson(c, all) };
}

export async function createCategory(accountId: number, slug: string, input: NewCategory) {
  const p = await requirePortal(accountId, slug);
  const locale = input.locale ?? p.config.default_locale;
  checkLocale(p, locale);
  const all = await repo.listCategories(accountId, p.id);
  checkCategoryRef(all, 'parent_category_id', input.parent_category_id);
  checkCategoryRef(all, 'associated_category_id', input.associated_category_id);
  const t = iso();
  const c: CategoryRecord = {
    id: await nextId('category'),
    account_id: accountId,
    portal_id: p.id,
    name: input.name,
    slug: input.slug,
    locale,
    description: input.description ?? null,
    position: input.position ?? null,
    parent_category_id: input.parent_category_id ?? null,
    associated_category_id: input.associated_category_id ?? null,
    related_category_ids: (input.related_category_ids ?? []).filter((id) => all.some((x) => x.id === id)),
    created_at: t,
    updated_at: t,
    version: 1,
  };
  await repo.saveCategory(undefined, c);
  return { payload: categoryJson(c, [...all, c]) };
}

export async function updateCategory(accountId: number, slug: string, id: number, input: CategoryUpdate) {
  const p = await requirePortal(accountId, slug);
  return retryStale(async (consistent) => {
    const [before, all] = await Promise.all([requireCategory(p, id, consistent), repo.listCategories(accountId, p.id)]);
    const locale = input.locale ?? before.locale;
    checkLocale(p, locale);
    checkCategoryRef(all, 'parent_category_id', input.parent_category_id, id);
    checkCategoryRef(all, 'associated_category_id', input.associated_category_id, id);
    const related = input.related_category_ids?.filter((x) => x !== id && all.some((c) => c.id === x));
    const after: CategoryRecord = {
      ...before,
      name: input.name ?? before.name,
      slug: input.slug ?? before.slug,
      locale,
      description: input.description === undefined ? before.description : input.description,
      position: input.position === undefined ? before.position : input.position,
      parent_category_id: input.parent_category_id === undefined ? before.parent_category_id : input.parent_category_id,
      associated_category_id: input.associated_category_id === undefined ? before.associated_category_id : input.associated_category_id,
      // Chatwoot replaces the related categories only when the body names some.
      related_category_ids: related?.length ? related : before.related_category_ids,
      updated_at: iso(),
      version: before.version + 1,
    };
    await repo.saveCategory(before, after);
    return {
      payload: categoryJson(
        after,
        all.map((c) => (c.id === id ? after : c)),
      ),
    };
  });
}

/** Removes a category; its articles keep going without one, and categories pointing at it lose the link (Chatwoot's nullify). */
export async function deleteCategory(accountId: number, slug: string, id: number): Promise<void> {
  const p = await requirePortal(accountId, slug);
  await retryStale(async (consistent) => {
    const c = await requireCategory(p, id, consistent);
    const [articles, categories] = await Promise.all([repo.listArticles(accountId, p.id), repo.listCategories(accountId, p.id)]);
    const t = iso();
    const changes = [
      ...articles
        .filter((a) => a.category_id === id)
        .map((a) => ({ before: a, after: { ...a, category_id: null, updated_at: t, version: a.version + 1 } })),
      ...categories
        .filter(
          (x) => x.id !== id && (x.parent_category_id === id || x.associated_category_id === id || x.related_category_ids.includes(id)),
        )
        .map((x) => ({
          before: x,
          after: {
            ...x,
            parent_category_id: x.parent_category_id === id ? null : x.parent_category_id,
            associated_category_id: x.associated_category_id === id ? null : x.associated_category_id,
            related_category_ids: x.related_category_ids.filter((r) => r !== id),
            updated_at: t,
            version: x.version + 1,
          },
        })),
    ];
    if (changes.length) await repo.saveAll(changes);
    await repo.deleteCategory(c);
  });
}

/** `POST …/reorder {positions_hash}`: each named record of the portal takes its position; unknown ids are skipped. */
async function reorder<T extends CategoryRecord | ArticleRecord>(records: T[], input: Reorder) {
  const byId = new Map(records.map((r) => [r.id, r]));
  const t = iso();
  const changes = Object.entries(input.positions_hash).flatMap(([id, position]) => {
    const before = byId.get(Number(id));
    return before && before.position !== position
      ? [{ before, after: { ...before, position, updated_at: t, version: before.version + 1 } }]
      : [];
  });
  if (changes.length) await repo.saveAll(changes);
}

export async function reorderCategories(accountId: number, slug: string, input: Reorder): Promise<void> {
  const p = await requirePortal(accountId, slug);
  await retryStale(async () => reorder(await repo.listCategories(accountId, p.id), input));
}

// ── articles ──

async function requireArticle(p: PortalRecord, id: number, consistent = false) {
  const a = await repo.getArticle(p.account_id, p.id, id, consistent);
  if (!a) throw notFound('Article');
  return a;
}

async function articleContext(accountId: number, articles: ArticleRecord[], categories: CategoryRecord[]): Promise<ArticleContext> {
  const authors = await agentsJson(
    accountId,
    articles.map((a) => a.author_id),
  );
  return {
    categories: new Map(categories.map((c) => [c.id, c])),
    authors: new Map(authors.map((a) => [(a as { id: number }).id, a])),
    articles,
  };
}

async function requireAuthor(accountId: number, authorId: number) {
  if (!(await getMembershipFresh(accountId, authorId))) throw invalidField('author_id', 'must be an agent of the account', 'not_found');
}

/** The next position in a category: 10 past the last (Chatwoot's update_article_position_in_category). */
const nextPosition = (articles: ArticleRecord[], categoryId: number | null, except?: number) => {
  const positions = articles.filter((a) => a.category_id === categoryId && a.id !== except && a.position != null).map((a) => a.position!);
  return positions.length ? Math.max(...positions) + 10 : 10;
};

/** An article's root: the one it names, or that one's own root (associations stay one level deep). */
function rootOf(articles: ArticleRecord[], id: number | null | undefined, self?: number) {
  if (id == null) return null;
  const target = articles.find((a) => a.id === id);
  if (!target || target.id === self) throw invalidField('associated_article_id', 'is not an article of this portal');
  return target.associated_article_id ?? target.id;
}

export async function listArticles(accountId: number, actor: Actor, slug: string, query: Record<string, string | undefined>) {
  const p = await requirePortal(accountId, slug);
  const [all, categories] = await Promise.all([repo.listArticles(accountId, p.id), repo.listCategories(accountId, p.id)]);
  const categorySlugs = new Map(categories.map((c) => [c.id, c.slug]));
  const terms = searchTerms(query.query);
  const authorId = query.author_id && /^\d+$/.test(query.author_id) ? Number(query.author_id) : undefined;
  const filtered = all
    .filter(
      (a) =>
        (!query.locale || a.locale === query.locale) &&
        (!query.category_slug || (a.category_id !== null && categorySlugs.get(a.category_id) === query.category_slug)) &&
        (!query.status || a.status === query.status) &&
        (authorId === undefined || a.author_id === authorId) &&
        matchesQuery(a, terms),
    )
    .sort(byPosition);
  const page = pageNumber(query.page);
  const shown = filtered.slice((page - 1) * HELP_CENTER_PAGE_SIZE, page * HELP_CENTER_PAGE_SIZE);
  const ctx = await articleContext(accountId, all, categories);
  const userId = userIdOf(actor);
  return {
    payload: shown.map((a) => articleJson(a, ctx)),
    meta: {
      current_page: page,
      articles_count: all.length,
      all_articles_count: all.length,
      archived_articles_count: filtered.filter((a) => a.status === 'archived').length,
      published_count: filtered.filter((a) => a.status === 'published').length,
      draft_articles_count: filtered.filter((a) => a.status === 'draft').length,
      ...(userId !== undefined ? { mine_articles_count: filtered.filter((a) => a.author_id === userId).length } : {}),
    },
  };
}

async function renderArticle(p: PortalRecord, a: ArticleRecord, articles?: ArticleRecord[]) {
  const [all, categories] = await Promise.all([articles ?? repo.listArticles(p.account_id, p.id), repo.listCategories(p.account_id, p.id)]);
  return { payload: articleJson(a, await articleContext(p.account_id, [a, ...all.filter((x) => x.id !== a.id)], categories)) };
}

export async function showArticle(accountId: number, slug: string, id: number) {
  const p = await requirePortal(accountId, slug);
  return renderArticle(p, await requireArticle(p, id));
}

/** The slug Chatwoot makes of a title: the creation second, then the title parameterized. */
export const articleSlug = (title: string, now = Date.now()) => {
  const words = parameterize(title);
  return words ? `${Math.floor(now / 1000)}-${words}` : String(Math.floor(now / 1000));
};

async function categoryFor(p: PortalRecord, id: number | null | undefined) {
  if (id == null) return null;
  const c = await repo.getCategory(p.account_id, p.id, id);
  if (!c) throw invalidField('category_id', 'is not a category of this portal');
  return c;
}

/** Creates an article; as Chatwoot's controller, a new article is a draft whatever the body says. */
export async function createArticle(accountId: number, slug: string, input: NewArticle) {
  const p = await requirePortal(accountId, slug);
  const [category, articles] = await Promise.all([
    categoryFor(p, input.category_id),
    repo.listArticles(accountId, p.id),
    requireAuthor(accountId, input.author_id),
  ]);
  const locale = category?.locale ?? input.locale ?? p.config.default_locale;
  const t = iso();
  const a: ArticleRecord = {
    id: await nextId('article'),
    account_id: accountId,
    portal_id: p.id,
    category_id: category?.id ?? null,
    author_id: input.author_id,
    title: input.title,
    slug: input.slug ?? articleSlug(input.title),
    content: input.content,
    description: input.description ?? null,
    status: 'draft',
    locale,
    position: input.position ?? nextPosition(articles, category?.id ?? null),
    meta: input.meta ?? {},
    views: 0,
    associated_article_id: rootOf(articles, input.associated_article_id),
    created_at: t,
    updated_at: t,
    version: 1,
  };
  await repo.saveArticle(undefined, a);
  return renderArticle(p, a, articles);
}

export async function updateArticle(accountId: number, slug: string, id: number, input: ArticleUpdate) {
  const p = await requirePortal(accountId, slug);
  if (input.author_id !== undefined) await requireAuthor(accountId, input.author_id);
  return retryStale(async (consistent) => {
    const [before, articles] = await Promise.all([requireArticle(p, id, consistent), repo.listArticles(accountId, p.id)]);
    const categoryId = input.category_id === undefined ? before.category_id : input.category_id;
    // An article in a category has the category's locale (Chatwoot's ensure_locale_in_article).
    const category = await categoryFor(p, categoryId);
    const moved = categoryId !== before.category_id;
    const after: ArticleRecord = {
      ...before,
      title: input.title ?? before.title,
      slug: input.slug ?? before.slug,
      content: input.content ?? before.content,
      description: input.description === undefined ? before.description : input.description,
      status: input.status ?? before.status,
      category_id: categoryId,
      author_id: input.author_id ?? before.author_id,
      locale: category?.locale ?? input.locale ?? before.locale,
      // Moved to another category, it goes last there (Chatwoot's category_id_changed_action).
      position: moved ? nextPosition(articles, categoryId, id) : input.position === undefined ? before.position : input.position,
      meta: input.meta === undefined ? before.meta : (input.meta ?? {}),
      associated_article_id:
        input.associated_article_id === undefined ? before.associated_article_id : rootOf(articles, input.associated_article_id, id),
      updated_at: iso(),
      version: before.version + 1,
    };
    await repo.saveArticle(before, after);
    return renderArticle(p, after, articles);
  });
}

export async function deleteArticle(accountId: number, slug: string, id: number): Promise<void> {
  const p = await requirePortal(accountId, slug);
  await retryStale(async (consistent) => repo.deleteArticle(await requireArticle(p, id, consistent)));
}

export async function reorderArticles(accountId: number, slug: string, input: Reorder): Promise<void> {
  const p = await requirePortal(accountId, slug);
  await retryStale(async () => reorder(await repo.listArticles(accountId, p.id), input));
}

/** The most results `search/articles` answers per page (Chatwoot's search pages). */
export const ARTICLE_SEARCH_PAGE_SIZE = 15;

/** `GET …/search/articles?q=`: the account's articles matching every term, most recently updated first. */
export async function searchArticles(accountId: number, query: Record<string, string | undefined>) {
  const terms = searchTerms(query.q);
  const portals = await repo.listPortals(accountId);
  const found = (
    await Promise.all(
      portals.map(async (p) => {
        const [articles, categories] = await Promise.all([repo.listArticles(accountId, p.id), repo.listCategories(accountId, p.id)]);
        const byId = new Map(categories.map((c) => [c.id, c]));
        return articles.filter((a) => terms.length && matchesQuery(a, terms)).map((a) => ({ a, json: searchArticleJson(a, p, byId) }));
      }),
    )
  )
    .flat()
    .sort((x, y) => y.a.updated_at.localeCompare(x.a.updated_at) || y.a.id - x.a.id);
  const page = pageNumber(query.page);
  return { payload: { articles: found.slice((page - 1) * ARTICLE_SEARCH_PAGE_SIZE, page * ARTICLE_SEARCH_PAGE_SIZE).map((f) => f.json) } };
}
