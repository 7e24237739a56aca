import { beforeAll, describe, expect, it } from 'vitest';
import { client, runtime, seedAccount, unique, type Client, type SeededAccount } from '../../support/runtime.ts';
import { ok, openWidget, widgetInbox, type WidgetInbox } from '../widget/fixtures.ts';

// What the web widget reads of the help center, over plain HTTP: the inbox's `portal_id` (a portal of its
// own account only), the widget settings' `portal`, Chatwoot's public `articles.json` (published articles of
// one locale, most read first, searched) and an article's plain layout, which the widget frames.

describe('help center in the web widget: portal_id, widget settings, articles.json', () => {
  let s: SeededAccount;
  let visitor: Client;
  let slug: string;
  let portalId: number;
  let inbox: WidgetInbox;
  const ids: Record<string, { id: number; slug: string }> = {};

  beforeAll(async () => {
    visitor = client((await runtime()).baseUrl);
    s = await seedAccount();
    slug = unique('widget-help-');
    const api = s.admin.api;
    const P = `${s.base}/portals/${slug}`;
    const portal = ok(
      await api.post(`${s.base}/portals`, { name: 'Acme Help', slug, config: { allowed_locales: ['en', 'de'], default_locale: 'en' } }),
      'portal',
    );
    portalId = portal.id;
    const category = ok(await api.post(`${P}/categories`, { name: 'Billing', slug: 'billing', locale: 'en' }), 'category').payload;
    const article = async (key: string, body: Record<string, unknown>, publish = true) => {
      const made = ok(await api.post(`${P}/articles`, { article: { author_id: s.admin.id, content: 'Text.', ...body } }), key).payload;
      if (publish) ok(await api.patch(`${P}/articles/${made.id}`, { status: 'published' }), `publish ${key}`);
      ids[key] = { id: made.id, slug: made.slug };
    };
    await article('invoice', { title: 'Download an invoice', slug: 'invoice', description: 'PDF invoices', category_id: category.id });
    await article('refund', { title: 'Ask for a refund', slug: 'refund', content: 'Refunds take five days.' });
    await article('password', { title: 'Reset your password', slug: 'password' });
    // The German one translates the password article (Chatwoot's associated articles); a draft translates the refund one.
    await article('german', { title: 'Passwort zurücksetzen', slug: 'passwort', locale: 'de', associated_article_id: ids.password.id });
    await article(
      'draft',
      { title: 'Refund policy draft', slug: 'refund-draft', content: 'Refunds soon.', associated_article_id: ids.refund.id },
      false,
    );
    // Views: refund 3, password 1, invoice 0.
    for (const [path, n] of [
      ['refund', 3],
      ['password', 1],
    ] as const)
      for (let i = 0; i < n; i++) expect((await visitor.get(`/hc/${slug}/articles/${path}`)).status).toBe(200);
    inbox = await widgetInbox(s);
  });

  it("an inbox takes a portal of its own account as portal_id, not another account's, and can drop it", async () => {
    const other = await seedAccount();
    const foreign = ok(await other.admin.api.post(`${other.base}/portals`, { name: 'Theirs', slug: unique('theirs-') }), 'foreign portal');

    const refused = await s.admin.api.patch(`${s.base}/inboxes/${inbox.id}`, { portal_id: foreign.id });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatchObject({ field: 'portal_id', code: 'not_found' });
    expect((await s.admin.api.patch(`${s.base}/inboxes/${inbox.id}`, { portal_id: 987654321 })).status).toBe(422);
    expect(ok(await s.admin.api.get(`${s.base}/inboxes/${inbox.id}`), 'inbox').portal_id).toBeNull();
    expect((await s.admin.api.patch(`${s.base}/inboxes/${inbox.id}`, { portal_id: 'abc' })).status).toBe(422);

    // Creating an inbox checks it the same way.
    const made = await s.admin.api.post(`${s.base}/inboxes`, {
      name: unique('kb-site-'),
      portal_id: foreign.id,
      channel: { type: 'web_widget', website_url: 'https://example.com' },
    });
    expect([made.status, made.body.errors?.[0]?.field]).toEqual([422, 'portal_id']);
    const withPortal = await widgetInbox(s, {}, { portal_id: portalId });
    expect(ok(await s.admin.api.get(`${s.base}/inboxes/${withPortal.id}`), 'inbox').portal_id).toBe(portalId);

    const set = ok(await s.admin.api.patch(`${s.base}/inboxes/${inbox.id}`, { portal_id: portalId }), 'set portal');
    expect(set.portal_id).toBe(portalId);
    expect(ok(await s.admin.api.patch(`${s.base}/inboxes/${inbox.id}`, { portal_id: null }), 'drop portal').portal_id).toBeNull();
  });

  it("the widget settings carry the inbox's portal (null without one, or once it is archived)", async () => {
    const api = client((await runtime()).baseUrl);
    expect((await openWidget(api, inbox)).website_channel_config.portal).toBeNull();

    ok(await s.admin.api.patch(`${s.base}/inboxes/${inbox.id}`, { portal_id: portalId }), 'set portal');
    const config = (await openWidget(api, inbox)).website_channel_config;
    expect(config.portal).toEqual({
      id: portalId,
      slug,
      name: 'Acme Help',
      color: null,
      custom_domain: null,
      config: { allowed_locales: ['en', 'de'], default_locale: 'en' },
    });

    const archivedSlug = unique('archived-');
    const archived = ok(await s.admin.api.post(`${s.base}/portals`, { name: 'Old', slug: archivedSlug }), 'archived portal');
    const second = await widgetInbox(s);
    ok(await s.admin.api.patch(`${s.base}/inboxes/${second.id}`, { portal_id: archived.id }), 'set archived portal');
    ok(await s.admin.api.patch(`${s.base}/portals/${archivedSlug}/archive`, {}), 'archive');
    expect((await openWidget(api, second)).website_channel_config.portal).toBeNull();
  });

  it("articles.json lists the locale's published articles in Chatwoot's shape, most read first, and searches them", async () => {
    const profile = ok(await s.admin.api.get('/api/v1/profile'), 'profile');
    expect(profile.name).toEqual(expect.any(String));
    // The widget's own call for the popular articles.
    const popular = await visitor.get(`/hc/${slug}/en/articles.json?sort=views&status=1&per_page=6&page=1`);
    expect(popular.status).toBe(200);
    expect(popular.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(popular.body.payload.map((a: { slug: string }) => a.slug)).toEqual(['refund', 'password', 'invoice']);
    expect(popular.body.meta).toEqual({ articles_count: 3 });
    const invoice = popular.body.payload[2];
    expect(invoice).toEqual({
      id: ids.invoice.id,
      slug: 'invoice',
      title: 'Download an invoice',
      content: 'Text.',
      description: 'PDF invoices',
      status: 'published',
      account_id: s.accountId,
      category_id: expect.any(Number),
      locale: 'en',
      last_updated_at: expect.any(Number),
      views: 0,
      link: `/hc/${slug}/articles/invoice`,
      category: { id: invoice.category_id, slug: 'billing', locale: 'en' },
      // Chatwoot's public author partial: names and the avatar (none here).
      author: { available_name: profile.available_name, name: profile.name, thumbnail: '' },
      associated_articles: [],
    });
    expect(popular.body.payload[0]).toMatchObject({ views: 3, category_id: null });
    expect(popular.body.payload[0].category).toBeUndefined();
    // The refund article's only associated one is a draft: never listed.
    expect(popular.body.payload[0].associated_articles).toEqual([]);
    // The password article's German translation, published, in Chatwoot's associated-article shape.
    expect(popular.body.payload[1].associated_articles).toEqual([
      {
        id: ids.german.id,
        category_id: null,
        title: 'Passwort zurücksetzen',
        content: 'Text.',
        description: null,
        status: 'published',
        account_id: s.accountId,
        last_updated_at: expect.any(Number),
        views: 0,
        author: { available_name: profile.available_name, name: profile.name, thumbnail: '' },
      },
    ]);

    // Without sort: the portal's order; drafts never, whatever `status` says.
    const byPosition = await visitor.get(`/hc/${slug}/en/articles.json?status=0`);
    expect(byPosition.body.payload.map((a: { slug: string }) => a.slug).sort()).toEqual(['invoice', 'password', 'refund']);

    const found = await visitor.get(`/hc/${slug}/en/articles.json?query=refund`);
    expect(found.body.payload.map((a: { slug: string }) => a.slug)).toEqual(['refund']);
    expect(found.body.meta.articles_count).toBe(1);
    expect((await visitor.get(`/hc/${slug}/en/articles.json?query=nothing-like-this`)).body).toEqual({
      payload: [],
      meta: { articles_count: 0 },
    });

    const de = await visitor.get(`/hc/${slug}/de/articles.json`);
    expect(de.body.payload.map((a: { slug: string }) => a.slug)).toEqual(['passwort']);

    const page2 = await visitor.get(`/hc/${slug}/en/articles.json?sort=views&per_page=2&page=2`);
    expect(page2.body.payload.map((a: { slug: string }) => a.slug)).toEqual(['invoice']);
    expect(page2.body.meta.articles_count).toBe(3);
  });

  it('articles.json answers bad input and unknown portals or locales with JSON errors', async () => {
    for (const q of ['per_page=0', 'per_page=51', 'page=abc', 'page=-1', 'per_page=1.5']) {
      const res = await visitor.get(`/hc/${slug}/en/articles.json?${q}`);
      expect([q, res.status, res.body.errors?.[0]?.code]).toEqual([q, 400, 'invalid']);
    }
    const noPortal = await visitor.get('/hc/no-such-portal-here/en/articles.json');
    expect([noPortal.status, noPortal.headers.get('content-type'), noPortal.body.errors[0].code]).toEqual([
      404,
      'application/json; charset=utf-8',
      'not_found',
    ]);
    expect((await visitor.get(`/hc/${slug}/fr/articles.json`)).status).toBe(404);
  });

  it("an article's plain layout is the article alone and may be framed by any site; the full page only by its own", async () => {
    const plain = await visitor.get(`/hc/${slug}/articles/refund?show_plain_layout=true&theme=light`);
    expect(plain.status).toBe(200);
    expect(plain.text).toContain('<h1>Ask for a refund</h1>');
    expect(plain.text).toContain('Refunds take five days.');
    expect(plain.text).not.toContain('<header>');
    expect(plain.text).not.toContain('<form');
    expect(plain.text).not.toContain('<script');
    expect(plain.headers.get('content-security-policy')).toContain('frame-ancestors *');
    expect(plain.headers.get('content-security-policy')).not.toContain('script-src');
    expect(plain.text).not.toContain('#161b22');
    // A dark widget asks for a dark page.
    expect((await visitor.get(`/hc/${slug}/articles/refund?show_plain_layout=true&theme=dark`)).text).toContain('background:#161b22');

    const full = await visitor.get(`/hc/${slug}/articles/refund`);
    expect(full.text).toContain('<header>');
    expect(full.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    expect((await visitor.get(`/hc/${slug}/articles/refund-draft?show_plain_layout=true`)).status).toBe(404);
  });
});
