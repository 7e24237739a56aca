import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { config } from '#shared/config.ts';
import { badRequest, ServiceError } from '#shared/errors.ts';
import { log } from '#shared/log.ts';
import { articleHtml } from '#shared/domain/help-center/markdown.ts';
import {
  articlePage,
  categoryPage,
  localeHome,
  PUBLIC_ARTICLES_PER_PAGE_MAX,
  publicArticles,
  publicPortal,
  requireLocale,
  searchPage,
  sitemapEntries,
  type PublicPortal,
} from '#shared/domain/help-center/public.ts';
import { DEFAULT_PORTAL_COLOR, publicArticleJson, publicArticlePath } from '#shared/domain/help-center/view.ts';
import type { ArticleRecord, CategoryRecord, PortalRecord } from '#shared/model/help-center.ts';
import { escapeHtml, wantsJson } from './html.ts';
import { enforceLimit, limitScope } from './limits.ts';
import { errorResult, statusOf } from './errors.ts';
import { jsonResult } from './response.ts';

// The public help center (`/hc/{slug}/…`): small server-rendered pages that need no script. Each page has
// the portal's colour and header, a locale switcher and a search form (plain links and a GET form), and a
// canonical link (on the portal's custom domain when it has one). Article Markdown is rendered and
// sanitised (shared/domain/help-center/markdown.ts), and every page is sent with a Content-Security-Policy
// that allows no script, so nothing an article holds can run. Requests are counted per client address.

type Result = APIGatewayProxyStructuredResultV2;

const CSP_BASE = "default-src 'none'; img-src http: https: data:; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'";
const CSP = `${CSP_BASE}; frame-ancestors 'self'`;
/**
 * An article in its plain layout is what the web widget shows in its article viewer, and the widget lives
 * in an iframe on any website, so every ancestor may be another site: that page may be framed anywhere.
 * It holds no script and no form, so framing it lets no one act for the visitor.
 */
const CSP_FRAMEABLE = `${CSP_BASE}; frame-ancestors *`;

const seg = encodeURIComponent;

export interface PageRequest {
  params: Record<string, string>;
  query: Record<string, string>;
  host: string | undefined;
}

function respond(
  status: number,
  contentType: string,
  body: string,
  acceptEncoding: string | undefined,
  extra: Record<string, string> = {},
  frameable = false,
): Result {
  const headers: Record<string, string> = {
    'content-type': contentType,
    // Revalidated on every visit: an article taken back to draft must not stay visible in a cache.
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'content-security-policy': frameable ? CSP_FRAMEABLE : CSP,
    'referrer-policy': 'strict-origin-when-cross-origin',
    vary: 'accept-encoding',
    ...extra,
  };
  if (body.length > 1024 && /\bgzip\b/.test(acceptEncoding ?? '')) {
    return {
      statusCode: status,
      headers: { ...headers, 'content-encoding': 'gzip' },
      body: gzipSync(body).toString('base64'),
      isBase64Encoded: true,
    };
  }
  return { statusCode: status, headers, body };
}

/**
 * Wraps a page: the client address's limit, then the page; a 404 or 429 as a small page (or the JSON error
 * body: always for a JSON route, `json`).
 */
export function pageHandler(
  render: (r: PageRequest) => Promise<{ status?: number; type?: string; body: string; location?: string; frameable?: boolean }>,
  json = false,
) {
  return async (event: APIGatewayProxyEventV2): Promise<Result> => {
    const headers = event.headers ?? {};
    try {
      await enforceLimit('address', limitScope.address(event.requestContext?.http?.sourceIp ?? 'unknown'));
      const page = await render({
        params: (event.pathParameters ?? {}) as Record<string, string>,
        query: (event.queryStringParameters ?? {}) as Record<string, string>,
        host: headers.host ?? headers.Host,
      });
      if (page.location) return { statusCode: 302, headers: { location: page.location, 'cache-control': 'no-cache' }, body: '' };
      return respond(
        page.status ?? 200,
        page.type ?? 'text/html; charset=utf-8',
        page.body,
        headers['accept-encoding'],
        {},
        page.frameable,
      );
    } catch (err) {
      if (!(err instanceof ServiceError)) {
        // As the middy chain's boundary: logged, and the error body of a 500 (never the Lambda's own).
        const requestId = event.requestContext?.requestId;
        log.error('unhandled error', { requestId, route: event.routeKey, error: err });
        return jsonResult(500, {
          description: 'Internal server error',
          errors: [{ field: '', message: `Something went wrong (request ${requestId})`, code: 'internal' }],
        });
      }
      if (json || wantsJson(headers.accept)) return errorResult(err);
      const extra: Record<string, string> = err.retryAfter ? { 'retry-after': String(err.retryAfter) } : {};
      return respond(
        statusOf(err),
        'text/html; charset=utf-8',
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(err.description)}</title></head><body><p>${escapeHtml(err.description)}</p></body></html>`,
        headers['accept-encoding'],
        extra,
      );
    }
  };
}

// ── layout ──

const origin = (pp: PublicPortal) =>
  pp.onCustomDomain && pp.portal.custom_domain ? `https://${pp.portal.custom_domain}` : config().publicBaseUrl;

const homePath = (p: PortalRecord, locale: string) => `/hc/${seg(p.slug)}/${seg(locale)}`;
const categoryPath = (p: PortalRecord, c: CategoryRecord) => `${homePath(p, c.locale)}/categories/${seg(c.slug)}`;
const articlePath = publicArticlePath;

function localeName(code: string, inLocale: string): string {
  try {
    return new Intl.DisplayNames([inLocale.replace('_', '-')], { type: 'language' }).of(code.replace('_', '-')) ?? code;
  } catch {
    return code;
  }
}

const STYLE =
  'body{margin:0;font:16px/1.6 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2d3d;background:#fff}' +
  'header{background:var(--c);color:#fff;padding:16px 20px 24px}header a{color:#fff}' +
  '.top{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;justify-content:space-between;max-width:760px;margin:0 auto}' +
  '.brand{font-weight:700;font-size:1.2em;text-decoration:none;display:inline-flex;align-items:center;gap:8px}.brand img{height:32px;width:auto}nav ul{list-style:none;margin:0;padding:0;display:flex;gap:10px;flex-wrap:wrap}' +
  'nav [aria-current]{font-weight:700;text-decoration:none}.lead{max-width:760px;margin:12px auto 0}' +
  'form{display:flex;gap:8px;max-width:760px;margin:12px auto 0}input[type=search]{flex:1;min-width:0;padding:10px;border:0;border-radius:6px;font:inherit}' +
  'button{padding:10px 14px;border:0;border-radius:6px;background:#fff;color:#1f2d3d;font:inherit;cursor:pointer}' +
  'main{max-width:760px;margin:0 auto;padding:8px 20px 40px}main a{color:var(--c)}h1{line-height:1.25}' +
  'article img{max-width:100%;height:auto}pre{overflow-x:auto;background:#f4f6fb;padding:12px;border-radius:6px}' +
  'table{border-collapse:collapse}td,th{border:1px solid #dde3ec;padding:4px 8px}.muted{color:#5d6b82}footer{max-width:760px;margin:0 auto;padding:0 20px 24px;font-size:.9em}';

interface Layout {
  pp: PublicPortal;
  locale: string;
  title: string;
  /** The page's path (its canonical link is this on the portal's origin). */
  path: string;
  description?: string | null;
  /** Where each other locale's switcher link goes (the locale's home unless said). */
  localeLinks?: Record<string, string>;
  query?: string;
  body: string;
}

function layout(l: Layout): string {
  const p = l.pp.portal;
  const color = p.color ?? DEFAULT_PORTAL_COLOR;
  const siteTitle = p.page_title || p.name;
  const locales = p.config.allowed_locales;
  const switcher =
    locales.length > 1
      ? `<nav aria-label="Language"><ul>${locales
          .map(
            (code) =>
              `<li><a href="${escapeHtml(l.localeLinks?.[code] ?? homePath(p, code))}" hreflang="${escapeHtml(code)}" lang="${escapeHtml(code)}"${
                code === l.locale ? ' aria-current="true"' : ''
              }>${escapeHtml(localeName(code, code))}</a></li>`,
          )
          .join('')}</ul></nav>`
      : '';
  const home = p.homepage_link
    ? ` <a class="muted" href="${escapeHtml(p.homepage_link)}" rel="noopener">${escapeHtml(new URL(p.homepage_link).hostname)}</a>`
    : '';
  return (
    `<!doctype html><html lang="${escapeHtml(l.locale.replace('_', '-'))}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(l.title === siteTitle ? siteTitle : `${l.title} · ${siteTitle}`)}</title>` +
    `<link rel="canonical" href="${escapeHtml(origin(l.pp) + l.path)}">` +
    (l.description ? `<meta name="description" content="${escapeHtml(l.description)}">` : '') +
    `<style>:root{--c:${color}}${STYLE}</style></head><body>` +
    `<header><div class="top"><a class="brand" href="${escapeHtml(homePath(p, l.locale))}">${
      l.pp.logoUrl ? `<img src="${escapeHtml(l.pp.logoUrl)}" alt="" height="32">` : ''
    }${escapeHtml(p.name)}</a>${switcher}</div>` +
    (p.header_text ? `<p class="lead">${escapeHtml(p.header_text)}</p>` : '') +
    `<form role="search" method="get" action="${escapeHtml(homePath(p, l.locale))}/articles"><input type="search" name="query" aria-label="Search articles" placeholder="Search articles" value="${escapeHtml(l.query ?? '')}" maxlength="200"><button type="submit">Search</button></form>` +
    `</header><main>${l.body}</main><footer class="muted">${escapeHtml(p.name)}${home}</footer></body></html>`
  );
}

const articleList = (p: PortalRecord, articles: ArticleRecord[]) =>
  articles.length
    ? `<ul>${articles
        .map(
          (a) =>
            `<li><a href="${escapeHtml(articlePath(p, a))}">${escapeHtml(a.title)}</a>${a.description ? `<br><span class="muted">${escapeHtml(a.description)}</span>` : ''}</li>`,
        )
        .join('')}</ul>`
    : '<p class="muted">No articles yet.</p>';

// ── pages ──

/** `/hc/{slug}`: to the default locale's home. */
export async function portalRoot(r: PageRequest) {
  const pp = await publicPortal(r.params.slug, r.host);
  return { body: '', location: homePath(pp.portal, pp.portal.config.default_locale) };
}

/** `/hc/{slug}/{locale}`: the categories of the locale and their articles. */
export async function homePage(r: PageRequest) {
  const pp = await publicPortal(r.params.slug, r.host);
  const p = pp.portal;
  const locale = requireLocale(p, r.params.locale);
  const { sections, uncategorized } = await localeHome(p, locale);
  const body =
    sections
      .map(
        (s) =>
          `<section><h2><a href="${escapeHtml(categoryPath(p, s.category))}">${escapeHtml(s.category.name)}</a></h2>` +
          (s.category.description ? `<p class="muted">${escapeHtml(s.category.description)}</p>` : '') +
          articleList(p, s.articles.slice(0, 6)) +
          '</section>',
      )
      .join('') + (uncategorized.length || !sections.length ? `<section><h2>Articles</h2>${articleList(p, uncategorized)}</section>` : '');
  return {
    body: layout({
      pp,
      locale,
      title: p.page_title || p.name,
      path: homePath(p, locale),
      description: p.header_text,
      body: `<h1>${escapeHtml(p.page_title || p.name)}</h1>${body}`,
    }),
  };
}

/** `/hc/{slug}/{locale}/categories/{category_slug}`. */
export async function categoryPageHtml(r: PageRequest) {
  const pp = await publicPortal(r.params.slug, r.host);
  const p = pp.portal;
  const locale = requireLocale(p, r.params.locale);
  const { category, articles, subCategories } = await categoryPage(p, locale, r.params.category_slug);
  const subs = subCategories.length
    ? `<h2>Sections</h2><ul>${subCategories.map((c) => `<li><a href="${escapeHtml(categoryPath(p, c))}">${escapeHtml(c.name)}</a></li>`).join('')}</ul>`
    : '';
  return {
    body: layout({
      pp,
      locale,
      title: category.name,
      path: categoryPath(p, category),
      description: category.description,
      body:
        `<p><a href="${escapeHtml(homePath(p, locale))}">Home</a></p><h1>${escapeHtml(category.name)}</h1>` +
        (category.description ? `<p class="muted">${escapeHtml(category.description)}</p>` : '') +
        articleList(p, articles) +
        subs,
    }),
  };
}

/** `/hc/{slug}/articles/{article_slug}`: a published article, its Markdown rendered safely. */
export async function articlePageHtml(r: PageRequest) {
  const pp = await publicPortal(r.params.slug, r.host);
  const p = pp.portal;
  const { article, category } = await articlePage(p, r.params.article_slug);
  const locale = p.config.allowed_locales.includes(article.locale) ? article.locale : p.config.default_locale;
  const content = `<article><h1>${escapeHtml(article.title)}</h1>${await articleHtml(article.content)}</article>`;
  // Chatwoot's `show_plain_layout`: the article alone, for the web widget's article viewer (its links open
  // outside the frame).
  if (r.query.show_plain_layout === 'true')
    return { body: plainLayout(pp, locale, article, content, r.query.theme === 'dark'), frameable: true };
  const crumbs = `<p><a href="${escapeHtml(homePath(p, locale))}">Home</a>${
    category ? ` › <a href="${escapeHtml(categoryPath(p, category))}">${escapeHtml(category.name)}</a>` : ''
  }</p>`;
  return {
    body: layout({
      pp,
      locale,
      title: article.title,
      path: articlePath(p, article),
      description: article.description,
      body: crumbs + content,
    }),
  };
}

/** An article page without the portal's header and footer: the web widget frames it. */
function plainLayout(pp: PublicPortal, locale: string, article: ArticleRecord, content: string, dark: boolean): string {
  const p = pp.portal;
  // The widget passes its colour scheme (Chatwoot's `theme`), so a dark widget frames a dark article.
  const scheme = dark ? 'body{background:#161b22;color:#e6edf3}pre{background:#242b35}.muted{color:#9aa5b1}' : '';
  return (
    `<!doctype html><html lang="${escapeHtml(locale.replace('_', '-'))}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(article.title)}</title>` +
    `<link rel="canonical" href="${escapeHtml(origin(pp) + articlePath(p, article))}"><base target="_blank">` +
    `<style>:root{--c:${p.color ?? DEFAULT_PORTAL_COLOR}}${STYLE}main{padding-top:0}${scheme}</style></head><body><main>${content}</main></body></html>`
  );
}

/** A query parameter that must be a whole number from 1 to `max` when given. */
function wholeNumber(query: Record<string, string>, name: string, fallback: number, max: number): number {
  const raw = query[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d{1,6}$/.test(raw) || n < 1 || n > max) throw badRequest(`${name} must be a whole number from 1 to ${max}`);
  return n;
}

/**
 * `/hc/{slug}/{locale}/articles.json`: Chatwoot's public articles index, which its web widget reads for the
 * popular articles (`sort=views&per_page=6`) and which takes a `query`. Published articles of the locale only.
 */
export async function articlesJson(r: PageRequest) {
  const pp = await publicPortal(r.params.slug, r.host);
  const p = pp.portal;
  const locale = requireLocale(p, r.params.locale);
  const { articles, count, ctx } = await publicArticles(p, locale, {
    query: (r.query.query ?? '').slice(0, 200),
    sort: r.query.sort,
    page: wholeNumber(r.query, 'page', 1, 100_000),
    perPage: wholeNumber(r.query, 'per_page', 25, PUBLIC_ARTICLES_PER_PAGE_MAX),
  });
  return {
    type: 'application/json; charset=utf-8',
    body: JSON.stringify({ payload: articles.map((a) => publicArticleJson(a, p, ctx)), meta: { articles_count: count } }),
  };
}

/** `/hc/{slug}/{locale}/articles?query=`: the search results (the header's form sends here). */
export async function searchPageHtml(r: PageRequest) {
  const pp = await publicPortal(r.params.slug, r.host);
  const p = pp.portal;
  const locale = requireLocale(p, r.params.locale);
  const query = (r.query.query ?? '').slice(0, 200);
  const found = await searchPage(p, locale, query);
  const heading = query ? `Results for “${escapeHtml(query)}”` : 'Search';
  return {
    body: layout({
      pp,
      locale,
      title: query ? `Search: ${query}` : 'Search',
      path: `${homePath(p, locale)}/articles`,
      query,
      body: `<h1>${heading}</h1>${query ? (found.length ? articleList(p, found) : '<p class="muted">No articles match.</p>') : ''}`,
    }),
  };
}

/** `/hc/{slug}/sitemap.xml`: each locale's home, its categories and the published articles. */
export async function sitemap(r: PageRequest) {
  const pp = await publicPortal(r.params.slug, r.host);
  const p = pp.portal;
  const { articles, categories } = await sitemapEntries(p);
  const base = origin(pp);
  const url = (path: string, lastmod?: string) =>
    `<url><loc>${escapeHtml(base + path)}</loc>${lastmod ? `<lastmod>${lastmod.slice(0, 10)}</lastmod>` : ''}</url>`;
  const body =
    '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
    p.config.allowed_locales.map((l) => url(homePath(p, l))).join('') +
    categories
      .filter((c) => p.config.allowed_locales.includes(c.locale))
      .map((c) => url(categoryPath(p, c), c.updated_at))
      .join('') +
    articles.map((a) => url(articlePath(p, a), a.updated_at)).join('') +
    '</urlset>';
  return { body, type: 'application/xml; charset=utf-8' };
}
