import type { BenchWorld, Scenarios } from './types.ts';

// The help center: the account API's portals, categories and articles (as the n8n node and Chatwoot's
// dashboard call them), and the public pages a visitor opens. A portal of ten categories and thirty
// articles (built once per bench world), so lists and pages read a realistic partition.

const A = '/api/v1/accounts/{account_id}';
const P = `${A}/portals/{id}`;

interface HelpCenter {
  slug: string;
  categoryId: number;
  articleId: number;
  articleSlug: string;
}

async function ok(res: { status: number; text: string; body: any }, what: string) {
  if (res.status !== 200) throw new Error(`bench setup ${what}: ${res.status} ${res.text}`);
  return res.body;
}

/** A portal with categories in two locales and published articles (one fresh per call of `setup`). */
async function helpCenter(w: BenchWorld): Promise<HelpCenter> {
  const api = w.account.admin.api;
  const slug = w.unique('bench-hc-').replace(/[^\w-]/g, '-');
  await ok(
    await api.post(`${w.account.base}/portals`, { portal: { name: 'Bench help', slug, config: { allowed_locales: ['en', 'es'] } } }),
    'portal',
  );
  const base = `${w.account.base}/portals/${slug}`;
  const categories: number[] = [];
  for (let c = 0; c < 10; c++) {
    const body = await ok(
      await api.post(`${base}/categories`, { name: `Topic ${c}`, slug: `topic-${c}`, locale: c < 8 ? 'en' : 'es' }),
      'category',
    );
    categories.push(body.payload.id);
  }
  let first: { id: number; slug: string } | undefined;
  for (let i = 0; i < 30; i++) {
    const body = await ok(
      await api.post(`${base}/articles`, {
        article: {
          title: `How to do thing ${i}`,
          content: `## Thing ${i}\n\n${'Some words about the product, with **emphasis** and a [link](https://example.com). '.repeat(20)}`,
          author_id: w.account.admin.id,
          category_id: categories[i % categories.length],
        },
      }),
      'article',
    );
    await ok(await api.patch(`${base}/articles/${body.payload.id}`, { status: 'published' }), 'publish');
    first ??= { id: body.payload.id, slug: body.payload.slug };
  }
  return { slug, categoryId: categories[0], articleId: first!.id, articleSlug: first!.slug };
}

const built = new WeakMap<BenchWorld, Promise<HelpCenter>>();
/** One help center per world for the scenarios that leave it usable (archiving gets its own). */
const shared = (w: BenchWorld): Promise<HelpCenter> => {
  let h = built.get(w);
  if (!h) built.set(w, (h = helpCenter(w)));
  return h;
};

const portalPath = (w: BenchWorld, h: HelpCenter, tail = '') => `${w.account.base}/portals/${h.slug}${tail}`;

/**
 * The dashboard's upload of a logo: a multipart `attachment`, written out as text (a GIF whose bytes after its
 * signature are plain ASCII, so the text is the file) so that every caller of the scenario can copy the body.
 */
function imageForm() {
  const boundary = 'bench-upload-boundary';
  const gif = `GIF89a${'bench-logo'.repeat(40)}`;
  return {
    body: `--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="logo.gif"\r\nContent-Type: image/gif\r\n\r\n${gif}\r\n--${boundary}--\r\n`,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

export const helpCenterScenarios: Scenarios = {
  // Chatwoot's upload route: the image stored, answered with its blob_id and a signed link.
  [`POST ${A}/upload`]: { request: (w) => ({ method: 'POST', path: `${w.account.base}/upload`, ...imageForm() }) },
  [`GET ${A}/portals`]: { setup: shared, request: (w) => ({ method: 'GET', path: `${w.account.base}/portals` }) },
  [`POST ${A}/portals`]: {
    request: (w) => ({
      method: 'POST',
      path: `${w.account.base}/portals`,
      body: { name: 'Docs', slug: w.unique('p-').replace(/[^\w-]/g, '-') },
    }),
  },
  [`GET ${P}`]: { setup: shared, request: (w, h: HelpCenter) => ({ method: 'GET', path: portalPath(w, h) }) },
  [`PATCH ${P}`]: {
    setup: shared,
    request: (w, h: HelpCenter, _p, i) => ({ method: 'PATCH', path: portalPath(w, h), body: { header_text: `Help ${i}` } }),
  },
  [`PUT ${P}`]: {
    setup: shared,
    request: (w, h: HelpCenter, _p, i) => ({ method: 'PUT', path: portalPath(w, h), body: { portal: { page_title: `Help ${i}` } } }),
  },
  [`DELETE ${P}`]: {
    prepare: async (w) => {
      const slug = w.unique('gone-').replace(/[^\w-]/g, '-');
      await ok(await w.account.admin.api.post(`${w.account.base}/portals`, { name: 'Gone', slug }), 'portal');
      return slug;
    },
    request: (w, _s, slug) => ({ method: 'DELETE', path: `${w.account.base}/portals/${slug}` }),
  },
  [`PATCH ${P}/archive`]: { setup: helpCenter, request: (w, h: HelpCenter) => ({ method: 'PATCH', path: portalPath(w, h, '/archive') }) },
  // A logo to remove each time: uploaded and attached untimed; the call clears the portal's logo and deletes its file.
  [`DELETE ${P}/logo`]: {
    setup: shared,
    prepare: async (w, h: HelpCenter) => {
      const form = imageForm();
      const up = await ok(await w.account.admin.api.post(`${w.account.base}/upload`, form.body, form.headers), 'upload');
      await ok(await w.account.admin.api.patch(portalPath(w, h), { blob_id: up.blob_id }), 'attach logo');
    },
    request: (w, h: HelpCenter) => ({ method: 'DELETE', path: portalPath(w, h, '/logo') }),
  },
  [`GET ${P}/ssl_status`]: {
    setup: shared,
    request: (w, h: HelpCenter) => ({ method: 'GET', path: portalPath(w, h, '/ssl_status'), status: 422 }),
  },
  [`GET ${P}/categories`]: {
    setup: shared,
    request: (w, h: HelpCenter) => ({ method: 'GET', path: portalPath(w, h, '/categories?locale=en') }),
  },
  [`POST ${P}/categories`]: {
    setup: shared,
    request: (w, h: HelpCenter, _p, i) => ({
      method: 'POST',
      path: portalPath(w, h, '/categories'),
      body: { name: `New ${i}`, slug: `new-${i}`, locale: 'en' },
    }),
  },
  [`POST ${P}/categories/reorder`]: {
    setup: shared,
    request: (w, h: HelpCenter, _p, i) => ({
      method: 'POST',
      path: portalPath(w, h, '/categories/reorder'),
      body: { positions_hash: { [h.categoryId]: i } },
    }),
  },
  [`GET ${P}/categories/{category_id}`]: {
    setup: shared,
    request: (w, h: HelpCenter) => ({ method: 'GET', path: portalPath(w, h, `/categories/${h.categoryId}`) }),
  },
  [`PATCH ${P}/categories/{category_id}`]: {
    setup: shared,
    request: (w, h: HelpCenter, _p, i) => ({
      method: 'PATCH',
      path: portalPath(w, h, `/categories/${h.categoryId}`),
      body: { description: `d${i}` },
    }),
  },
  [`PUT ${P}/categories/{category_id}`]: {
    setup: shared,
    request: (w, h: HelpCenter, _p, i) => ({
      method: 'PUT',
      path: portalPath(w, h, `/categories/${h.categoryId}`),
      body: { category: { position: i } },
    }),
  },
  [`DELETE ${P}/categories/{category_id}`]: {
    setup: shared,
    prepare: async (w, h: HelpCenter) =>
      (
        await ok(
          await w.account.admin.api.post(portalPath(w, h, '/categories'), { name: 'Gone', slug: w.unique('gone-'), locale: 'en' }),
          'category',
        )
      ).payload.id,
    request: (w, h: HelpCenter, id) => ({ method: 'DELETE', path: portalPath(w, h, `/categories/${id}`) }),
  },
  [`GET ${P}/articles`]: {
    setup: shared,
    request: (w, h: HelpCenter) => ({ method: 'GET', path: portalPath(w, h, '/articles?locale=en&status=published') }),
  },
  [`POST ${P}/articles`]: {
    setup: shared,
    request: (w, h: HelpCenter, _p, i) => ({
      method: 'POST',
      path: portalPath(w, h, '/articles'),
      body: { title: `Fresh ${i}`, content: 'Fresh **content**.', author_id: w.account.admin.id, category_id: h.categoryId },
    }),
  },
  [`POST ${P}/articles/reorder`]: {
    setup: shared,
    request: (w, h: HelpCenter, _p, i) => ({
      method: 'POST',
      path: portalPath(w, h, '/articles/reorder'),
      body: { positions_hash: { [h.articleId]: i } },
    }),
  },
  [`GET ${P}/articles/{article_id}`]: {
    setup: shared,
    request: (w, h: HelpCenter) => ({ method: 'GET', path: portalPath(w, h, `/articles/${h.articleId}`) }),
  },
  [`PATCH ${P}/articles/{article_id}`]: {
    setup: shared,
    request: (w, h: HelpCenter, _p, i) => ({
      method: 'PATCH',
      path: portalPath(w, h, `/articles/${h.articleId}`),
      body: { description: `d${i}` },
    }),
  },
  [`PUT ${P}/articles/{article_id}`]: {
    setup: shared,
    request: (w, h: HelpCenter, _p, i) => ({
      method: 'PUT',
      path: portalPath(w, h, `/articles/${h.articleId}`),
      body: { article: { title: `T${i}` } },
    }),
  },
  [`DELETE ${P}/articles/{article_id}`]: {
    setup: shared,
    prepare: async (w, h: HelpCenter) =>
      (
        await ok(
          await w.account.admin.api.post(portalPath(w, h, '/articles'), { title: 'Gone', content: 'x', author_id: w.account.admin.id }),
          'article',
        )
      ).payload.id,
    request: (w, h: HelpCenter, id) => ({ method: 'DELETE', path: portalPath(w, h, `/articles/${id}`) }),
  },
  [`GET ${A}/search/articles`]: {
    setup: shared,
    request: (w) => ({ method: 'GET', path: `${w.account.base}/search/articles?q=thing` }),
  },

  'GET /hc/{slug}': { setup: shared, request: (_w, h: HelpCenter) => ({ method: 'GET', path: `/hc/${h.slug}`, status: 302 }) },
  'GET /hc/{slug}/sitemap.xml': {
    setup: shared,
    request: (_w, h: HelpCenter) => ({ method: 'GET', path: `/hc/${h.slug}/sitemap.xml` }),
  },
  'GET /hc/{slug}/{locale}': { setup: shared, request: (_w, h: HelpCenter) => ({ method: 'GET', path: `/hc/${h.slug}/en` }) },
  'GET /hc/{slug}/{locale}/articles': {
    setup: shared,
    request: (_w, h: HelpCenter) => ({ method: 'GET', path: `/hc/${h.slug}/en/articles?query=thing%205` }),
  },
  // The web widget's call for its popular articles.
  'GET /hc/{slug}/{locale}/articles.json': {
    setup: shared,
    request: (_w, h: HelpCenter) => ({ method: 'GET', path: `/hc/${h.slug}/en/articles.json?sort=views&status=1&per_page=6&page=1` }),
  },
  'GET /hc/{slug}/{locale}/categories/{category_slug}': {
    setup: shared,
    request: (_w, h: HelpCenter) => ({ method: 'GET', path: `/hc/${h.slug}/en/categories/topic-0` }),
  },
  'GET /hc/{slug}/articles/{article_slug}': {
    setup: shared,
    request: (_w, h: HelpCenter) => ({ method: 'GET', path: `/hc/${h.slug}/articles/${h.articleSlug}` }),
  },
};
