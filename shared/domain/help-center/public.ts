import * as repo from '#shared/db/repositories/help-center.ts';
import { getUsers } from '#shared/db/repositories/identity.ts';
import { notFound } from '#shared/errors.ts';
import type { ArticleRecord, CategoryRecord, PortalRecord } from '#shared/model/help-center.ts';
import { activeAccount } from '../accounts/suspension.ts';
import { fileSigningReady } from '#shared/storage/file-urls.ts';
import { matchesQuery, searchTerms } from './text.ts';
import { byPosition, portalLogoUrl, type PublicArticleContext } from './view.ts';

// What the public help-center pages show (Chatwoot's Public::Api::V1::Portals controllers): a portal that
// is not archived, its categories, and its published articles only; a draft or archived article is as
// absent as one that never existed. A request on a portal's custom domain is answered for that portal
// only. A suspended account's portals answer 403 `account_suspended`, as every interface does.

export interface PublicPortal {
  portal: PortalRecord;
  /** The request came on the portal's own custom domain. */
  onCustomDomain: boolean;
  /** A signed link to the portal's logo, when it has one (the pages' header shows it). */
  logoUrl?: string;
}

/**
 * The portal a path's slug names, seen from `host`: a host that is another portal's custom domain serves
 * only that portal, so every other slug is 404 there.
 */
export async function publicPortal(slug: string | undefined, host: string | undefined): Promise<PublicPortal> {
  if (!slug || slug.length > 255) throw notFound('Portal');
  const hostName = host?.replace(/:\d+$/, '').toLowerCase();
  const [owner, domainOwner] = await Promise.all([
    repo.portalBySlug(slug),
    hostName && hostName.length <= 253 ? repo.portalByDomain(hostName) : undefined,
  ]);
  if (!owner?.account_id) throw notFound('Portal');
  if (domainOwner && (domainOwner.owner_id !== owner.owner_id || domainOwner.account_id !== owner.account_id)) throw notFound('Portal');
  const [portal] = await Promise.all([repo.getPortal(owner.account_id, owner.owner_id), activeAccount(owner.account_id, 'Portal')]);
  if (!portal || portal.archived) throw notFound('Portal');
  // The link's signing key is loaded once per container, and only by a portal that shows a logo.
  if (portal.logo) await fileSigningReady();
  return { portal, onCustomDomain: !!domainOwner, logoUrl: portalLogoUrl(portal) };
}

/** A locale of the portal, or 404. */
export function requireLocale(p: PortalRecord, locale: string | undefined): string {
  if (!locale || !p.config.allowed_locales.includes(locale)) throw notFound('Locale');
  return locale;
}

async function published(p: PortalRecord) {
  const [articles, categories] = await Promise.all([repo.listArticles(p.account_id, p.id), repo.listCategories(p.account_id, p.id)]);
  return { articles: articles.filter((a) => a.status === 'published').sort(byPosition), categories: categories.sort(byPosition) };
}

export interface CategorySection {
  category: CategoryRecord;
  articles: ArticleRecord[];
}

/** The locale's home: each category with its published articles, then those in no category. */
export async function localeHome(p: PortalRecord, locale: string) {
  const { articles, categories } = await published(p);
  const inLocale = articles.filter((a) => a.locale === locale);
  const sections: CategorySection[] = categories
    .filter((c) => c.locale === locale)
    .map((category) => ({ category, articles: inLocale.filter((a) => a.category_id === category.id) }));
  const known = new Set(sections.map((s) => s.category.id));
  return { sections, uncategorized: inLocale.filter((a) => a.category_id === null || !known.has(a.category_id)) };
}

/** A category page: the category of this slug in the locale, its published articles and its sub-categories. */
export async function categoryPage(p: PortalRecord, locale: string, slug: string | undefined) {
  if (!slug || slug.length > 255) throw notFound('Category');
  const { articles, categories } = await published(p);
  const category = categories.find((c) => c.locale === locale && c.slug === slug);
  if (!category) throw notFound('Category');
  return {
    category,
    articles: articles.filter((a) => a.category_id === category.id),
    subCategories: categories.filter((c) => c.parent_category_id === category.id),
  };
}

/** A published article of the portal by its slug (counted as a view), with its category. */
export async function articlePage(p: PortalRecord, slug: string | undefined) {
  if (!slug || slug.length > 255) throw notFound('Article');
  const owner = await repo.articleBySlug(p.id, slug);
  const article = owner ? await repo.getArticle(p.account_id, p.id, owner.owner_id) : undefined;
  // A draft or archived article is as absent as one that never was.
  if (article?.status !== 'published') throw notFound('Article');
  const [category] = await Promise.all([
    article.category_id ? repo.getCategory(p.account_id, p.id, article.category_id) : undefined,
    repo.countArticleView(article),
  ]);
  return { article, category };
}

/** The most results a search page shows. */
export const PUBLIC_SEARCH_LIMIT = 50;

/** The locale's published articles matching every word of the query. */
export async function searchPage(p: PortalRecord, locale: string, query: string | undefined) {
  const terms = searchTerms(query);
  if (!terms.length) return [];
  const { articles } = await published(p);
  return articles.filter((a) => a.locale === locale && matchesQuery(a, terms)).slice(0, PUBLIC_SEARCH_LIMIT);
}

/** The most articles one page of `articles.json` holds (Chatwoot's widget asks for 6). */
export const PUBLIC_ARTICLES_PER_PAGE_MAX = 50;

export interface ArticleListing {
  query?: string;
  /** `views`: most read first (Chatwoot's `order_by_views`); otherwise by position. */
  sort?: string;
  page: number;
  perPage: number;
}

/**
 * `articles.json` (Chatwoot's public articles index, which the web widget reads): the locale's published
 * articles matching the query, one page of them, the count of all that match, and what their JSON names: the
 * portal's categories, the published articles associated to them and the authors of both (one batch read of
 * the few users a page names).
 */
export async function publicArticles(p: PortalRecord, locale: string, l: ArticleListing) {
  const terms = searchTerms(l.query);
  const { articles, categories } = await published(p);
  const matching = articles.filter((a) => a.locale === locale && matchesQuery(a, terms));
  // Views first, then position; the sort is stable, so equal counts keep the portal's order.
  if (l.sort === 'views') matching.sort((a, b) => (b.views ?? 0) - (a.views ?? 0));
  const start = (l.page - 1) * l.perPage;
  const shown = matching.slice(start, start + l.perPage);
  const ids = new Set(shown.map((a) => a.id));
  const named = [...shown, ...articles.filter((a) => a.associated_article_id !== null && ids.has(a.associated_article_id))];
  const authorIds = [...new Set(named.map((a) => a.author_id))];
  const [users] = authorIds.length
    ? // Authors' avatars are signed links.
      await Promise.all([getUsers(authorIds), fileSigningReady()])
    : [[]];
  const ctx: PublicArticleContext = {
    categories: new Map(categories.map((c) => [c.id, c])),
    authors: new Map(users.flatMap((u) => (u ? [[u.id, u] as const] : []))),
    published: articles,
  };
  return { articles: shown, count: matching.length, ctx };
}

/** Everything the sitemap lists: each locale's home, the categories and the published articles. */
export async function sitemapEntries(p: PortalRecord) {
  return published(p);
}
