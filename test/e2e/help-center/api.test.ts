import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, fieldsOf, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';

// The help center's account API as Chatwoot's portals, categories and articles controllers answer it, called
// the way the n8n Chatwoot node (RenatoAscencio/n8n-nodes-chatwoot, its helpCenter resource) and Chatwoot's
// own dashboard call it: flat bodies and bodies wrapped under `portal`, `category`, `article`.

const PORTAL_KEYS = [
  'account_id',
  'archived',
  'color',
  'config',
  'custom_domain',
  'header_text',
  'homepage_link',
  'id',
  'meta',
  'name',
  'page_title',
  'slug',
];

describe('help center API', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  beforeAll(async () => {
    await runtime();
    [s, other] = await Promise.all([seedAccount(), seedAccount()]);
  });

  it('n8n createPortal (flat), listPortals, getPortal, updatePortal; Chatwoot shapes; taken slug 422, unknown 404', async () => {
    const slug = unique('docs-');
    // n8n createPortal: {name, slug, ...additionalFields}.
    const created = await s.admin.api.post(`${s.base}/portals`, {
      name: 'Acme Docs',
      slug,
      archived: false,
      custom_domain: `https://${slug}.Example.com/`,
      header_text: 'How can we help?',
      homepage_link: 'https://acme.example.com',
      page_title: 'Acme Help',
    });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual(PORTAL_KEYS);
    expect(created.body).toMatchObject({
      name: 'Acme Docs',
      slug,
      account_id: s.accountId,
      archived: false,
      custom_domain: `${slug}.example.com`,
      color: '#1f93ff',
      header_text: 'How can we help?',
      homepage_link: 'https://acme.example.com',
      page_title: 'Acme Help',
      config: { allowed_locales: [{ code: 'en', articles_count: 0, categories_count: 0 }], default_locale: 'en' },
      meta: {
        all_articles_count: 0,
        archived_articles_count: 0,
        published_count: 0,
        draft_articles_count: 0,
        categories_count: 0,
        default_locale: 'en',
      },
    });
    expect(created.body.id).toEqual(expect.any(Number));

    // Chatwoot's dashboard: wrapped, with a config.
    const slug2 = unique('kb-');
    const wrapped = await s.admin.api.post(`${s.base}/portals`, {
      portal: { name: 'KB', slug: slug2, color: '#AA3300', config: { allowed_locales: ['en', 'es'], default_locale: 'es' } },
    });
    expect(wrapped.status).toBe(200);
    expect(wrapped.body.config).toEqual({
      allowed_locales: [
        { code: 'en', articles_count: 0, categories_count: 0 },
        { code: 'es', articles_count: 0, categories_count: 0 },
      ],
      default_locale: 'es',
    });

    // listPortals: {payload, meta}; agents read.
    const list = await s.agent.api.get(`${s.base}/portals`);
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ current_page: 1, portals_count: 2 });
    expect(list.body.payload.map((p: { slug: string }) => p.slug)).toEqual([slug, slug2]);

    // getPortal by slug.
    const shown = await s.agent.api.get(`${s.base}/portals/${slug}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(created.body);

    // updatePortal (n8n: flat updateFields).
    const updated = await s.admin.api.patch(`${s.base}/portals/${slug}`, { name: 'Acme Help Center', header_text: '' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Acme Help Center', header_text: null, slug });

    // Taken slug (this account's or another's) and custom domain: 422; unknown slug: 404; another account's: 404.
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/portals`, { name: 'x', slug }), 422))).toEqual({ slug: 'taken' });
    expect(fieldsOf(expectErrorBody(await other.admin.api.post(`${other.base}/portals`, { name: 'x', slug }), 422))).toEqual({
      slug: 'taken',
    });
    expect(
      fieldsOf(
        expectErrorBody(
          await other.admin.api.post(`${other.base}/portals`, { name: 'x', slug: unique('o-'), custom_domain: `${slug}.example.com` }),
          422,
        ),
      ),
    ).toEqual({ custom_domain: 'taken' });
    expect(fieldsOf(expectErrorBody(await s.admin.api.patch(`${s.base}/portals/${slug2}`, { slug }), 422))).toEqual({ slug: 'taken' });
    expectErrorBody(await s.agent.api.get(`${s.base}/portals/no-such-portal`), 404);
    expectErrorBody(await other.admin.api.get(`${other.base}/portals/${slug}`), 404);
    expectErrorBody(await other.admin.api.patch(`${other.base}/portals/${slug}`, { name: 'mine' }), 404);

    // Bad input: 422 naming the fields, nothing written.
    expect(
      fieldsOf(
        expectErrorBody(
          await s.admin.api.post(`${s.base}/portals`, { name: '', slug: 'a b', color: 'red', homepage_link: 'javascript:alert(1)' }),
          422,
        ),
      ),
    ).toEqual({ name: 'required', slug: 'invalid', color: 'invalid', homepage_link: 'invalid' });
    expect(
      fieldsOf(
        expectErrorBody(
          await s.admin.api.post(`${s.base}/portals`, {
            name: 'x',
            slug: unique('c-'),
            config: { allowed_locales: ['en'], default_locale: 'fr' },
          }),
          422,
        ),
      ),
    ).toEqual({ 'config.default_locale': 'invalid' });
    expect((await s.agent.api.get(`${s.base}/portals`)).body.meta.portals_count).toBe(2);

    // Agents read, only administrators write.
    expectErrorBody(await s.agent.api.post(`${s.base}/portals`, { name: 'x', slug: unique('a-') }), 403);
    expectErrorBody(await s.agent.api.patch(`${s.base}/portals/${slug}`, { name: 'x' }), 403);

    // ssl_status: this deployment manages no certificates, and says so.
    const ssl = expectErrorBody(await s.admin.api.get(`${s.base}/portals/${slug}/ssl_status`), 422);
    expect(fieldsOf(ssl)).toEqual({ custom_domain: 'not_managed' });
    expect(fieldsOf(expectErrorBody(await s.admin.api.get(`${s.base}/portals/${slug2}/ssl_status`), 422))).toEqual({
      custom_domain: 'not_configured',
    });

    // Archive, then delete (its slug free again).
    expect((await s.admin.api.patch(`${s.base}/portals/${slug2}/archive`)).status).toBe(200);
    expect((await s.agent.api.get(`${s.base}/portals/${slug2}`)).body.archived).toBe(true);
    const gone = await s.admin.api.delete(`${s.base}/portals/${slug2}`);
    expect([gone.status, gone.text]).toEqual([200, '']);
    expectErrorBody(await s.agent.api.get(`${s.base}/portals/${slug2}`), 404);
    expect((await other.admin.api.post(`${other.base}/portals`, { name: 'reuse', slug: slug2 })).status).toBe(200);
  });

  it('categories and articles: n8n createCategory/createArticle/listCategories/listArticles, Chatwoot shapes, rules', async () => {
    const slug = unique('hc-');
    expect(
      (await s.admin.api.post(`${s.base}/portals`, { portal: { name: 'HC', slug, config: { allowed_locales: ['en', 'pt_BR'] } } })).status,
    ).toBe(200);
    const P = `${s.base}/portals/${slug}`;

    // n8n createCategory: {name, slug, locale, ...additionalFields} (flat), and Chatwoot's wrapped body.
    const start = await s.admin.api.post(`${P}/categories`, {
      name: 'Getting started',
      slug: 'start',
      locale: 'en',
      description: 'First steps',
      position: 1,
    });
    expect(start.status).toBe(200);
    expect(start.body).toEqual({
      payload: {
        id: expect.any(Number),
        name: 'Getting started',
        slug: 'start',
        locale: 'en',
        description: 'First steps',
        position: 1,
        account_id: s.accountId,
        related_categories: [],
      },
    });
    const billing = (
      await s.admin.api.post(`${P}/categories`, {
        category: {
          name: 'Billing',
          slug: 'billing',
          locale: 'en',
          position: 2,
          parent_category_id: start.body.payload.id,
          related_category_ids: [start.body.payload.id, 999999],
        },
      })
    ).body.payload;
    expect(billing.parent_category).toMatchObject({ id: start.body.payload.id, slug: 'start' });
    expect(billing.related_categories.map((c: { id: number }) => c.id)).toEqual([start.body.payload.id]);
    const inicio = (
      await s.admin.api.post(`${P}/categories`, {
        name: 'Início',
        slug: 'start',
        locale: 'pt_BR',
        associated_category_id: start.body.payload.id,
      })
    ).body.payload;
    expect(inicio.root_category).toMatchObject({ id: start.body.payload.id });
    // Same slug in the same locale: taken; a locale the portal does not allow: 422.
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${P}/categories`, { name: 'x', slug: 'start', locale: 'en' }), 422))).toEqual({
      slug: 'taken',
    });
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${P}/categories`, { name: 'x', slug: 'x', locale: 'fr' }), 422))).toEqual({
      locale: 'invalid',
    });

    // n8n listCategories: ?locale=en.
    const cats = await s.agent.api.get(`${P}/categories?locale=en`);
    expect(cats.body.meta).toEqual({ current_page: 1, categories_count: 2 });
    expect(cats.body.payload.map((c: { slug: string }) => c.slug)).toEqual(['start', 'billing']);

    // n8n createArticle: {title, content, ...additionalFields} flat; author_id is required, as in Chatwoot.
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${P}/articles`, { title: 'No author', content: 'x' }), 422))).toEqual({
      author_id: 'required',
    });
    expect(
      fieldsOf(
        expectErrorBody(await s.admin.api.post(`${P}/articles`, { title: 'Stranger', content: 'x', author_id: other.admin.id }), 422),
      ),
    ).toEqual({ author_id: 'not_found' });
    const first = await s.admin.api.post(`${P}/articles`, {
      title: 'Install the app',
      content: '# Install\n\nDownload **it**.',
      author_id: s.agent.id,
      category_id: String(start.body.payload.id),
      description: 'How to install',
      status: 'published',
    });
    expect(first.status).toBe(200);
    const a1 = first.body.payload;
    expect(a1).toMatchObject({
      title: 'Install the app',
      content: '# Install\n\nDownload **it**.',
      description: 'How to install',
      // A new article is a draft, whatever the body says (Chatwoot's controller).
      status: 'draft',
      position: 10,
      account_id: s.accountId,
      locale: 'en',
      meta: {},
      views: 0,
      category: { id: start.body.payload.id, name: 'Getting started', slug: 'start', locale: 'en' },
      author: { id: s.agent.id, role: 'agent' },
      associated_articles: [],
    });
    expect(a1.slug).toMatch(/^\d{10}-install-the-app$/);
    expect(a1.updated_at).toEqual(expect.any(Number));
    // Chatwoot's dashboard: wrapped, its own slug; the next position in the category.
    const a2 = (
      await s.admin.api.post(`${P}/articles`, {
        article: {
          title: 'Pay by card',
          content: 'Cards work.',
          author_id: s.admin.id,
          category_id: billing.id,
          slug: 'pay-by-card',
          associated_article_id: a1.id,
        },
      })
    ).body.payload;
    expect([a2.slug, a2.position, a2.category.slug]).toEqual(['pay-by-card', 10, 'billing']);
    const a3 = (
      await s.admin.api.post(`${P}/articles`, {
        title: 'Uninstall',
        content: 'Remove it.',
        author_id: s.admin.id,
        category_id: start.body.payload.id,
      })
    ).body.payload;
    expect(a3.position).toBe(20);
    expect(
      fieldsOf(
        expectErrorBody(
          await s.admin.api.post(`${P}/articles`, { title: 'Dup', content: 'x', author_id: s.admin.id, slug: 'pay-by-card' }),
          422,
        ),
      ),
    ).toEqual({
      slug: 'taken',
    });

    // Publish and edit; the associated article shows under its root.
    const pub = await s.admin.api.patch(`${P}/articles/${a1.id}`, { article: { status: 'published', meta: { tags: ['setup'] } } });
    expect(pub.body.payload).toMatchObject({ status: 'published', meta: { tags: ['setup'] } });
    expect(pub.body.payload.associated_articles.map((a: { id: number }) => a.id)).toEqual([a2.id]);
    expect((await s.agent.api.get(`${P}/articles/${a2.id}`)).body.payload).toMatchObject({ id: a2.id, title: 'Pay by card' });

    // n8n listArticles: ?locale=en&category_slug=&status=; Chatwoot's counts.
    const list = await s.agent.api.get(`${P}/articles?locale=en`);
    expect(list.status).toBe(200);
    expect(list.body.payload.map((a: { id: number }) => a.id)).toEqual([a1.id, a2.id, a3.id]);
    expect(list.body.meta).toEqual({
      current_page: 1,
      articles_count: 3,
      all_articles_count: 3,
      archived_articles_count: 0,
      published_count: 1,
      draft_articles_count: 2,
      mine_articles_count: 1,
    });
    expect((await s.agent.api.get(`${P}/articles?category_slug=start`)).body.payload.map((a: { id: number }) => a.id)).toEqual([
      a1.id,
      a3.id,
    ]);
    expect((await s.agent.api.get(`${P}/articles?status=published`)).body.payload.map((a: { id: number }) => a.id)).toEqual([a1.id]);
    expect((await s.agent.api.get(`${P}/articles?query=downl`)).body.payload.map((a: { id: number }) => a.id)).toEqual([a1.id]);

    // Reorder, then the list follows the positions.
    expect((await s.admin.api.post(`${P}/articles/reorder`, { positions_hash: { [a3.id]: 1, [a1.id]: 5 } })).status).toBe(200);
    expect((await s.agent.api.get(`${P}/articles?category_slug=start`)).body.payload.map((a: { id: number }) => a.id)).toEqual([
      a3.id,
      a1.id,
    ]);
    expect((await s.admin.api.post(`${P}/categories/reorder`, { positions_hash: { [billing.id]: 0 } })).status).toBe(200);
    expect((await s.agent.api.get(`${P}/categories?locale=en`)).body.payload.map((c: { slug: string }) => c.slug)).toEqual([
      'billing',
      'start',
    ]);

    // The portal's counts per locale.
    const portal = (await s.agent.api.get(`${s.base}/portals/${slug}`)).body;
    expect(portal.config.allowed_locales).toEqual([
      { code: 'en', articles_count: 3, categories_count: 2 },
      { code: 'pt_BR', articles_count: 0, categories_count: 1 },
    ]);
    expect(portal.meta).toMatchObject({ all_articles_count: 3, published_count: 1, draft_articles_count: 2, categories_count: 3 });

    // search/articles: every portal of the account, every word a word start.
    const found = await s.agent.api.get(`${s.base}/search/articles?q=install`);
    expect(found.status).toBe(200);
    // "install" begins a word of "Install the app", not of "Uninstall".
    expect(found.body.payload.articles.map((a: { id: number }) => a.id)).toEqual([a1.id]);
    expect((await s.agent.api.get(`${s.base}/search/articles?q=uninst`)).body.payload.articles.map((a: { id: number }) => a.id)).toEqual([
      a3.id,
    ]);
    expect(found.body.payload.articles.find((a: { id: number }) => a.id === a1.id)).toEqual({
      id: a1.id,
      title: 'Install the app',
      locale: 'en',
      content: '# Install\n\nDownload **it**.',
      slug: a1.slug,
      portal_slug: slug,
      account_id: s.accountId,
      category_name: 'Getting started',
      status: 'published',
      updated_at: expect.any(Number),
    });
    expect((await other.admin.api.get(`${other.base}/search/articles?q=install`)).body.payload.articles).toEqual([]);

    // Deleting a category leaves its articles without one.
    expect((await s.admin.api.delete(`${P}/categories/${billing.id}`)).status).toBe(200);
    expect((await s.agent.api.get(`${P}/articles/${a2.id}`)).body.payload.category).toEqual({
      id: null,
      name: null,
      slug: null,
      locale: null,
    });
    expectErrorBody(await s.agent.api.get(`${P}/categories/${billing.id}`), 404);
    // Agents may not write; unknown ids are 404.
    expectErrorBody(await s.agent.api.patch(`${P}/articles/${a1.id}`, { title: 'mine' }), 403);
    expectErrorBody(await s.agent.api.post(`${P}/articles`, { title: 'x', content: 'x', author_id: s.agent.id }), 403);
    expectErrorBody(await s.admin.api.delete(`${P}/articles/99999999`), 404);
    expect((await s.admin.api.delete(`${P}/articles/${a3.id}`)).status).toBe(200);
    expectErrorBody(await s.agent.api.get(`${P}/articles/${a3.id}`), 404);
    expect(fieldsOf(expectErrorBody(await s.admin.api.patch(`${P}/articles/${a1.id}`, { status: 'gone' }), 422))).toEqual({
      status: 'invalid',
    });
  });
});
