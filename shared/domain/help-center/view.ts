import type { ArticleRecord, CategoryRecord, PortalLogo, PortalRecord } from '#shared/model/help-center.ts';
import type { UserRecord } from '#shared/model/identity.ts';
import { fileScope, fileUrl, storedRef } from '#shared/storage/file-urls.ts';
import { availableName, userAvatarUrl } from '../conversations/view.ts';

// Chatwoot's JSON of the help center (app/views/api/v1/accounts/{portals,categories,articles}/*.jbuilder).

export const DEFAULT_PORTAL_COLOR = '#1f93ff';

/** Chatwoot's order of categories and articles: by position (none last), then by id. */
export const byPosition = <T extends { position: number | null; id: number }>(a: T, b: T) =>
  (a.position ?? Number.MAX_SAFE_INTEGER) - (b.position ?? Number.MAX_SAFE_INTEGER) || a.id - b.id;

const statusCounts = (articles: ArticleRecord[]) => ({
  all_articles_count: articles.length,
  archived_articles_count: articles.filter((a) => a.status === 'archived').length,
  published_count: articles.filter((a) => a.status === 'published').length,
  draft_articles_count: articles.filter((a) => a.status === 'draft').length,
});

/** A portal's logo as a signed link to its file, or undefined without one. */
export const portalLogoUrl = (p: PortalRecord) =>
  p.logo ? fileUrl(storedRef(p.logo.key), fileScope.accountUpload(p.account_id), p.logo.filename) || undefined : undefined;

/** Chatwoot's `portal.file_base_data`. */
const portalLogoJson = (p: PortalRecord, logo: PortalLogo) => ({
  id: logo.id,
  portal_id: p.id,
  file_type: logo.content_type,
  account_id: p.account_id,
  file_url: portalLogoUrl(p),
  blob_id: logo.blob_id,
  filename: logo.filename,
});

/**
 * A portal, with the counts of `articles` (all of the portal's, or those of one locale on `show ?locale=`)
 * and per allowed locale.
 */
export function portalJson(
  p: PortalRecord,
  content: { articles: ArticleRecord[]; allArticles: ArticleRecord[]; categories: CategoryRecord[] },
  userId?: number,
) {
  return {
    id: p.id,
    color: p.color ?? DEFAULT_PORTAL_COLOR,
    custom_domain: p.custom_domain,
    header_text: p.header_text,
    homepage_link: p.homepage_link,
    name: p.name,
    page_title: p.page_title,
    slug: p.slug,
    archived: p.archived,
    account_id: p.account_id,
    config: {
      allowed_locales: p.config.allowed_locales.map((code) => ({
        code,
        articles_count: content.allArticles.filter((a) => a.locale === code).length,
        categories_count: content.categories.filter((c) => c.locale === code).length,
      })),
      default_locale: p.config.default_locale,
    },
    ...(p.logo ? { logo: portalLogoJson(p, p.logo) } : {}),
    meta: {
      ...statusCounts(content.articles),
      ...(userId !== undefined && content.articles.length
        ? { mine_articles_count: content.articles.filter((a) => a.author_id === userId).length }
        : {}),
      categories_count: content.categories.length,
      default_locale: p.config.default_locale,
    },
  };
}

/** The short form of a category (Chatwoot's _associated_category). */
export const associatedCategoryJson = (c: CategoryRecord) => ({
  id: c.id,
  name: c.name,
  slug: c.slug,
  locale: c.locale,
  description: c.description,
  position: c.position,
  account_id: c.account_id,
});

/** A category; `all` are the portal's categories (its related, parent and root categories are among them). */
export function categoryJson(c: CategoryRecord, all: CategoryRecord[]) {
  const byId = new Map(all.map((x) => [x.id, x]));
  const parent = c.parent_category_id ? byId.get(c.parent_category_id) : undefined;
  const root = c.associated_category_id ? byId.get(c.associated_category_id) : undefined;
  return {
    ...associatedCategoryJson(c),
    related_categories: c.related_category_ids.flatMap((id) => (byId.has(id) ? [associatedCategoryJson(byId.get(id)!)] : [])),
    ...(parent ? { parent_category: associatedCategoryJson(parent) } : {}),
    ...(root ? { root_category: associatedCategoryJson(root) } : {}),
  };
}

export interface ArticleContext {
  categories: Map<number, CategoryRecord>;
  authors: Map<number, unknown>;
  /** The portal's articles, for an article's associated ones. */
  articles: ArticleRecord[];
}

const articleCore = (a: ArticleRecord, ctx: ArticleContext) => ({
  id: a.id,
  slug: a.slug,
  title: a.title,
  content: a.content,
  description: a.description,
  status: a.status,
  position: a.position,
  account_id: a.account_id,
  updated_at: Math.floor(Date.parse(a.updated_at) / 1000),
  meta: a.meta,
  locale: a.locale,
  category: {
    id: a.category_id,
    name: a.category_id ? (ctx.categories.get(a.category_id)?.name ?? null) : null,
    slug: a.category_id ? (ctx.categories.get(a.category_id)?.slug ?? null) : null,
    locale: a.category_id ? (ctx.categories.get(a.category_id)?.locale ?? null) : null,
  },
  views: a.views ?? 0,
  ...(ctx.authors.has(a.author_id) ? { author: ctx.authors.get(a.author_id) } : {}),
});

/** An article, with the articles associated to it (those whose root it is). */
export const articleJson = (a: ArticleRecord, ctx: ArticleContext) => ({
  ...articleCore(a, ctx),
  associated_articles: ctx.articles.filter((x) => x.associated_article_id === a.id && x.id !== a.id).map((x) => articleCore(x, ctx)),
});

/** An article in the account's search results (Chatwoot's search/_article). */
export const searchArticleJson = (a: ArticleRecord, portal: PortalRecord, categories: Map<number, CategoryRecord>) => ({
  id: a.id,
  title: a.title,
  locale: a.locale,
  content: a.content,
  slug: a.slug,
  portal_slug: portal.slug,
  account_id: a.account_id,
  category_name: a.category_id ? (categories.get(a.category_id)?.name ?? null) : null,
  status: a.status,
  updated_at: Math.floor(Date.parse(a.updated_at) / 1000),
});

/** The public path of an article's page (what Chatwoot's public article JSON calls `link`). */
export const publicArticlePath = (portal: PortalRecord, a: ArticleRecord) =>
  `/hc/${encodeURIComponent(portal.slug)}/articles/${encodeURIComponent(a.slug)}`;

/** What the public JSON tells of an article's author (Chatwoot's public/api/v1/models/hc/_author). */
const publicAuthorJson = (u: UserRecord) => ({ available_name: availableName(u), name: u.name, thumbnail: userAvatarUrl(u) });

export interface PublicArticleContext {
  categories: Map<number, CategoryRecord>;
  /** The authors of the articles shown and of their associated ones. */
  authors: Map<number, UserRecord>;
  /** The portal's published articles (an article's associated ones are among them; drafts never are). */
  published: ArticleRecord[];
}

const withAuthor = (a: ArticleRecord, ctx: PublicArticleContext) => {
  const author = ctx.authors.get(a.author_id);
  return author ? { author: publicAuthorJson(author) } : {};
};

/** An article associated to another, as the public JSON nests it (Chatwoot's hc/_associated_article). */
const publicAssociatedJson = (a: ArticleRecord, ctx: PublicArticleContext) => ({
  id: a.id,
  category_id: a.category_id,
  title: a.title,
  content: a.content,
  description: a.description,
  status: a.status,
  account_id: a.account_id,
  last_updated_at: Math.floor(Date.parse(a.updated_at) / 1000),
  views: a.views ?? 0,
  ...withAuthor(a, ctx),
});

/** A published article as the public `articles.json` lists it (Chatwoot's public/api/v1/models/_article). */
export const publicArticleJson = (a: ArticleRecord, portal: PortalRecord, ctx: PublicArticleContext) => {
  const category = a.category_id ? ctx.categories.get(a.category_id) : undefined;
  return {
    id: a.id,
    slug: a.slug,
    title: a.title,
    content: a.content,
    description: a.description,
    status: a.status,
    account_id: a.account_id,
    category_id: a.category_id,
    locale: a.locale,
    last_updated_at: Math.floor(Date.parse(a.updated_at) / 1000),
    views: a.views ?? 0,
    link: publicArticlePath(portal, a),
    ...(category ? { category: { id: category.id, slug: category.slug, locale: category.locale } } : {}),
    ...withAuthor(a, ctx),
    associated_articles: ctx.published
      .filter((x) => x.associated_article_id === a.id && x.id !== a.id)
      .map((x) => publicAssociatedJson(x, ctx)),
  };
};
