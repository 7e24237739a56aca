import { mkdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumForSuite } from '../../support/chromium.ts';
import { PNG } from '../../support/providers.ts';
import { client, runtime, seedAccount, unique, type Client, type SeededAccount } from '../../support/runtime.ts';

// The public help center pages (`/hc/...`) as a visitor gets them: over plain HTTP (status, headers, what
// the HTML holds and never holds), and in a real headless Chromium (browse, switch locale, search, read),
// where an article carrying script in every form a Markdown author could slip in must run none of it.
// Screenshots go to screenshots/ (git-ignored).

const SHOTS = join(import.meta.dirname, '../../../screenshots');

const EVIL = [
  'Before the traps.',
  '',
  '<script>window.__pwned = "script"; alert("script")</script>',
  '',
  '<img src="x" onerror="window.__pwned = \'onerror\'; alert(\'onerror\')">',
  '',
  '[Click me](javascript:window.__pwned=\'link\') and <a href="javascript:alert(1)" onclick="window.__pwned=\'onclick\'">this</a>',
  '',
  '<iframe src="javascript:parent.__pwned=\'iframe\'"></iframe><iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
  '',
  '<svg onload="window.__pwned=\'svg\'"><circle r="5"/></svg><body onload="window.__pwned=\'body\'">',
  '',
  '<style>body{display:none}</style><form action="https://evil.example"><input name="x"></form>',
  '',
  '![pic](javascript:alert(1)) [data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '',
  'After the traps: **still here**.',
].join('\n');

/** A GET with a chosen Host header (a custom domain pointed at the service). */
function getWithHost(
  baseUrl: string,
  path: string,
  host: string,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const u = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET', headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('help center pages', () => {
  let s: SeededAccount;
  let base: string;
  let visitor: Client;
  let slug: string;
  const ids: Record<string, { id: number; slug: string }> = {};

  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    visitor = client(base);
    s = await seedAccount();
    slug = unique('help-');
    const api = s.admin.api;
    const P = `${s.base}/portals/${slug}`;
    const portal = await api.post(`${s.base}/portals`, {
      portal: {
        name: 'Acme Help',
        slug,
        color: '#7c3aed',
        header_text: 'Answers for Acme customers',
        homepage_link: 'https://acme.example.com',
        custom_domain: `${slug}.docs.example.com`,
        config: { allowed_locales: ['en', 'es'], default_locale: 'en' },
      },
    });
    expect(portal.status).toBe(200);
    // Its logo, as the dashboard sets one: uploaded, then named by blob_id.
    const logo = new FormData();
    logo.append('attachment', new Blob([PNG], { type: 'image/png' }), 'acme.png');
    const uploaded = await api.post(`${s.base}/upload`, logo);
    expect(uploaded.status).toBe(200);
    expect((await api.patch(P, { blob_id: uploaded.body.blob_id })).status).toBe(200);
    const en = (
      await api.post(`${P}/categories`, { name: 'Getting started', slug: 'getting-started', locale: 'en', description: 'First steps' })
    ).body.payload;
    const es = (await api.post(`${P}/categories`, { name: 'Primeros pasos', slug: 'primeros-pasos', locale: 'es' })).body.payload;
    const article = async (key: string, body: Record<string, unknown>, publish = true) => {
      const res = await api.post(`${P}/articles`, { article: { author_id: s.admin.id, ...body } });
      expect(res.status, key).toBe(200);
      if (publish) expect((await api.patch(`${P}/articles/${res.body.payload.id}`, { status: 'published' })).status).toBe(200);
      ids[key] = { id: res.body.payload.id, slug: res.body.payload.slug };
    };
    await article('install', {
      title: 'Install the app',
      slug: 'install-the-app',
      description: 'Download and set up',
      content:
        '## Steps\n\n1. Download the **installer**\n2. Run it\n\n| OS | File |\n|---|---|\n| Linux | acme.deb |\n\n[Our site](https://acme.example.com)',
      category_id: en.id,
    });
    await article('instalar', {
      title: 'Instalar la aplicación',
      slug: 'instalar',
      content: 'Descargue el **instalador**.',
      category_id: es.id,
    });
    await article('draft', { title: 'Secret roadmap', slug: 'secret-roadmap', content: 'Unreleased plans', category_id: en.id }, false);
    await article('evil', { title: 'Tricky formatting', slug: 'tricky', content: EVIL, category_id: en.id });
  });

  it('serves the portal, its locales, categories, articles, search and sitemap as HTML that needs no script', async () => {
    const root = await visitor.get(`/hc/${slug}`);
    expect([root.status, root.headers.get('location')]).toEqual([302, `/hc/${slug}/en`]);

    const home = await visitor.get(`/hc/${slug}/en`);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(home.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(home.headers.get('content-security-policy')).not.toContain('script-src');
    expect(home.text).toContain(`<link rel="canonical" href="${base}/hc/${slug}/en">`);
    expect(home.text).toContain(':root{--c:#7c3aed}');
    expect(home.text).toContain('Answers for Acme customers');
    expect(home.text).toContain(`href="/hc/${slug}/en/categories/getting-started"`);
    expect(home.text).toContain(`href="/hc/${slug}/articles/install-the-app"`);
    expect(home.text).toContain(`href="/hc/${slug}/es" hreflang="es"`);
    expect(home.text).not.toContain('<script');
    // Drafts never leak: not listed, not served, not in the sitemap or search.
    expect(home.text).not.toContain('Secret roadmap');
    expect((await visitor.get(`/hc/${slug}/articles/secret-roadmap`)).status).toBe(404);
    expect((await visitor.get(`/hc/${slug}/en/articles?query=roadmap`)).text).not.toContain('Secret roadmap');
    // Pages stay small.
    expect(Buffer.byteLength(home.text)).toBeLessThan(8 * 1024);

    const es = await visitor.get(`/hc/${slug}/es`);
    expect(es.text).toContain('<html lang="es">');
    expect(es.text).toContain('Instalar la aplicación');
    expect(es.text).not.toContain('Install the app');

    const category = await visitor.get(`/hc/${slug}/en/categories/getting-started`);
    expect(category.status).toBe(200);
    expect(category.text).toContain('<h1>Getting started</h1>');
    expect(category.text).toContain('Install the app');
    expect((await visitor.get(`/hc/${slug}/es/categories/getting-started`)).status).toBe(404);

    const article = await visitor.get(`/hc/${slug}/articles/install-the-app`);
    expect(article.status).toBe(200);
    expect(article.text).toContain('<h1>Install the app</h1>');
    expect(article.text).toContain('<h2>Steps</h2>');
    expect(article.text).toContain('<strong>installer</strong>');
    expect(article.text).toContain('<td>acme.deb</td>');
    expect(article.text).toContain(`<link rel="canonical" href="${base}/hc/${slug}/articles/install-the-app">`);
    // The visit counted.
    expect((await s.agent.api.get(`${s.base}/portals/${slug}/articles/${ids.install.id}`)).body.payload.views).toBe(1);

    const search = await visitor.get(`/hc/${slug}/en/articles?query=${encodeURIComponent('download set')}`);
    expect(search.status).toBe(200);
    expect(search.text).toContain('Install the app');
    expect((await visitor.get(`/hc/${slug}/en/articles?query=nothing-matches-this`)).text).toContain('No articles match.');

    const sitemap = await visitor.get(`/hc/${slug}/sitemap.xml`);
    expect(sitemap.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    for (const path of [
      '/en',
      '/es',
      '/en/categories/getting-started',
      '/articles/install-the-app',
      '/articles/instalar',
      '/articles/tricky',
    ])
      expect(sitemap.text).toContain(`<loc>${base}/hc/${slug}${path}</loc>`);
    expect(sitemap.text).not.toContain('secret-roadmap');

    // Unknown portal, locale, category: 404 pages (JSON for a client that asks for it).
    expect((await visitor.get('/hc/no-such-portal/en')).status).toBe(404);
    expect((await visitor.get(`/hc/${slug}/fr`)).status).toBe(404);
    const json = await visitor.get(`/hc/${slug}/articles/nope`, { accept: 'application/json' });
    expect([json.status, json.body.errors[0].code]).toEqual([404, 'not_found']);
  });

  it('renders an article carrying script, event handlers, javascript: links and frames as inert HTML', async () => {
    const page = await visitor.get(`/hc/${slug}/articles/tricky`);
    expect(page.status).toBe(200);
    const body = page.text.slice(page.text.indexOf('<article>'), page.text.indexOf('</article>'));
    expect(body).toContain('Before the traps.');
    expect(body).toContain('<strong>still here</strong>');
    for (const bad of [
      '<script',
      'onerror',
      'onclick',
      'onload',
      'javascript:',
      '<iframe',
      'srcdoc',
      '<svg',
      '<style',
      '<form',
      'data:text/html',
    ])
      expect(body.toLowerCase(), bad).not.toContain(bad);
  });

  it('a custom domain serves its own portal, with canonical links on that domain, and no other', async () => {
    const onDomain = await getWithHost(base, `/hc/${slug}/en`, `${slug}.docs.example.com`);
    expect(onDomain.status).toBe(200);
    expect(onDomain.body).toContain(`<link rel="canonical" href="https://${slug}.docs.example.com/hc/${slug}/en">`);
    const otherSlug = unique('other-');
    expect((await s.admin.api.post(`${s.base}/portals`, { name: 'Other', slug: otherSlug })).status).toBe(200);
    expect((await getWithHost(base, `/hc/${otherSlug}`, `${slug}.docs.example.com`)).status).toBe(404);
    expect((await visitor.get(`/hc/${otherSlug}`)).status).toBe(302);
    // Archived: gone from the public side.
    expect((await s.admin.api.patch(`${s.base}/portals/${otherSlug}/archive`)).status).toBe(200);
    expect((await visitor.get(`/hc/${otherSlug}`)).status).toBe(404);
  });

  it("a suspended account's portal answers 403 on the public side and the account API", async () => {
    const t = await seedAccount();
    const tSlug = unique('susp-');
    expect((await t.admin.api.post(`${t.base}/portals`, { name: 'Soon gone', slug: tSlug })).status).toBe(200);
    expect((await visitor.get(`/hc/${tSlug}/en`)).status).toBe(200);
    expect((await t.platform.patch(`/platform/api/v1/accounts/${t.accountId}`, { status: 'suspended' })).status).toBe(200);
    const page = await visitor.get(`/hc/${tSlug}/en`);
    expect(page.status).toBe(403);
    expect(page.text).toContain('Account is suspended');
    expect((await visitor.get(`/hc/${tSlug}/en`, { accept: 'application/json' })).body.errors[0].code).toBe('account_suspended');
    expect((await t.admin.api.get(`${t.base}/portals`)).status).toBe(403);
  });

  describe('in a browser', () => {
    const executablePath = chromiumForSuite();
    let browser: Browser;
    beforeAll(async () => {
      if (!executablePath) return;
      mkdirSync(SHOTS, { recursive: true });
      browser = await chromium.launch({ executablePath, headless: true });
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('a visitor opens the portal, changes locale, searches and reads an article; nothing from an article runs', async () => {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: true });
      const page = await context.newPage();
      const dialogs: string[] = [];
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      const home = await page.goto(`${base}/hc/${slug}`);
      expect(home?.status()).toBe(200);
      expect(page.url()).toBe(`${base}/hc/${slug}/en`);
      expect(await page.locator('header .brand').textContent()).toBe('Acme Help');
      // The logo, before the name, loaded through its signed link (a decoded 1×1 image shown 32 pixels high).
      const logo = page.locator('header .brand img');
      expect(await logo.evaluate((img) => [(img as any).complete, (img as any).naturalWidth, (img as any).height])).toEqual([true, 1, 32]);
      expect(await page.locator('header').evaluate((h) => (globalThis as any).getComputedStyle(h).backgroundColor)).toBe(
        'rgb(124, 58, 237)',
      );
      await page.screenshot({ path: join(SHOTS, 'help-center-home.png'), fullPage: true });

      await page.locator('nav[aria-label="Language"] a[hreflang="es"]').click();
      await page.waitForURL(`${base}/hc/${slug}/es`);
      expect(await page.locator('main').textContent()).toContain('Primeros pasos');

      await page.locator('nav[aria-label="Language"] a[hreflang="en"]').click();
      await page.waitForURL(`${base}/hc/${slug}/en`);
      await page.locator('input[name="query"]').fill('installer');
      await page.locator('form[role="search"] button').click();
      await page.waitForURL(/\/articles\?query=installer$/);
      await page.screenshot({ path: join(SHOTS, 'help-center-search.png'), fullPage: true });
      await page.locator('main a', { hasText: 'Install the app' }).click();
      await page.waitForURL(`${base}/hc/${slug}/articles/install-the-app`);
      expect(await page.locator('article h1').textContent()).toBe('Install the app');
      expect(await page.locator('article table td').first().textContent()).toBe('Linux');
      await page.screenshot({ path: join(SHOTS, 'help-center-article.png'), fullPage: true });

      const draft = await page.goto(`${base}/hc/${slug}/articles/secret-roadmap`);
      expect(draft?.status()).toBe(404);

      const evil = await page.goto(`${base}/hc/${slug}/articles/tricky`);
      expect(evil?.status()).toBe(200);
      // Every link left on the page is inert; clicking the ones that were javascript: does nothing.
      for (const link of await page.locator('article a').all()) {
        const href = await link.getAttribute('href');
        expect(href === null || /^(https?:|mailto:|tel:)/.test(href), String(href)).toBe(true);
      }
      await page.locator('article a', { hasText: 'Click me' }).click();
      await page.locator('article a', { hasText: 'this' }).click();
      await page.mouse.move(10, 10);
      expect(await page.evaluate(() => (globalThis as any).__pwned)).toBeUndefined();
      expect(await page.locator('script, iframe, object, embed, svg, style:not(head style)').count()).toBe(0);
      expect(await page.locator('article form, article input[name]').count()).toBe(0);
      expect(await page.locator('article strong', { hasText: 'still here' }).isVisible()).toBe(true);
      expect(dialogs).toEqual([]);
      await page.screenshot({ path: join(SHOTS, 'help-center-inert-article.png'), fullPage: true });
      await context.close();
    });
  });
});
