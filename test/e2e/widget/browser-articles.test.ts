import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser, type FrameLocator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumForSuite } from '../../support/chromium.ts';
import { client, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { hostSite, ok, widgetInbox, widgetLoaded, type WidgetInbox } from './fixtures.ts';

// The help center in the widget, in a real headless Chromium: a visitor on a website whose widget's inbox
// names a portal sees its most read published articles (never a draft), searches them, opens one in the
// widget's article viewer (the article's page framed inside the widget, itself framed by the site) and goes
// back. Screenshots go to screenshots/ (git-ignored).

const SHOTS = join(import.meta.dirname, '../../../screenshots');
const LONG = 120_000;

describe('help-center articles in the widget, in a browser', () => {
  const executablePath = chromiumForSuite();
  let s: SeededAccount;
  let inbox: WidgetInbox;
  let browser: Browser;
  let site: { url: string; server: Server };
  let page: Page;
  let chat: FrameLocator;

  beforeAll(async () => {
    if (!executablePath) return;
    mkdirSync(SHOTS, { recursive: true });
    const rt = await runtime();
    s = await seedAccount();
    const slug = unique('widget-kb-');
    const P = `${s.base}/portals/${slug}`;
    const portal = ok(
      await s.admin.api.post(`${s.base}/portals`, {
        name: 'Acme Help',
        slug,
        config: { allowed_locales: ['en', 'de'], default_locale: 'en' },
      }),
      'portal',
    );
    const article = async (title: string, articleSlug: string, content: string, publish = true, locale = 'en') => {
      const made = ok(
        await s.admin.api.post(`${P}/articles`, { article: { author_id: s.admin.id, title, slug: articleSlug, content, locale } }),
        title,
      ).payload;
      if (publish) ok(await s.admin.api.patch(`${P}/articles/${made.id}`, { status: 'published' }), `publish ${title}`);
    };
    await article('Reset your password', 'password', 'Use the **Forgot password** link on the sign-in page.');
    await article('Ask for a refund', 'refund', 'Refunds take five working days.');
    await article('Refund policy draft', 'refund-draft', 'Not for customers yet.', false);
    await article('Passwort zurücksetzen', 'passwort', 'Nutzen Sie **Passwort vergessen**.', true, 'de');
    // The refund article is the most read.
    expect((await client(rt.baseUrl).get(`/hc/${slug}/articles/refund`)).status).toBe(200);

    inbox = await widgetInbox(s, { widget_color: '#0f766e', welcome_title: 'Acme support' });
    ok(await s.admin.api.patch(`${s.base}/inboxes/${inbox.id}`, { portal_id: portal.id }), 'inbox portal');
    // `?locale=` on any page sets chatwootSettings.locale.
    site = await hostSite(rt.baseUrl, inbox.website_token, {
      settings: (w) => ({ position: 'right', locale: new URLSearchParams(w.location.search).get('locale') || 'en' }),
    });
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage();
    chat = page.frameLocator('iframe[title="Chat window"]');
  }, LONG);

  afterAll(async () => {
    if (!executablePath) return;
    await browser?.close();
    await new Promise((r) => site?.server.close(r));
  });

  const titles = () => chat.locator('.cw-articles-list button').allTextContents();

  it(
    'shows the popular published articles, searches them, opens one in the viewer and goes back',
    async () => {
      const fetched: string[] = [];
      page.on('request', (r) => r.url().includes('/articles.json') && fetched.push(r.url()));
      await page.goto(site.url);
      await widgetLoaded(page);
      // Nothing is fetched for a visitor who never opens the chat.
      expect(fetched).toEqual([]);
      await page.getByRole('button', { name: /chat/i }).click();

      await chat.getByText('Popular articles').waitFor();
      await chat.getByRole('button', { name: 'Ask for a refund' }).waitFor();
      // Most read first; the draft is never there.
      expect(await titles()).toEqual(['Ask for a refund', 'Reset your password']);
      expect(await chat.locator('.cw-articles-all').getAttribute('href')).toMatch(/^\/hc\/widget-kb-[^/]+\/en$/);
      await page.screenshot({ path: join(SHOTS, 'widget-articles.png') });

      const search = chat.getByRole('searchbox', { name: 'Search articles' });
      await search.fill('password');
      await chat.getByRole('button', { name: 'Ask for a refund' }).waitFor({ state: 'detached' });
      expect(await titles()).toEqual(['Reset your password']);
      await search.fill('refund');
      await chat.getByRole('button', { name: 'Ask for a refund' }).waitFor();
      expect(await titles()).toEqual(['Ask for a refund']);
      await search.fill('nothing-like-this');
      await chat.getByText('No articles found').waitFor();
      expect(await titles()).toEqual([]);
      await search.fill('');
      await chat.getByRole('button', { name: 'Reset your password' }).waitFor();

      await chat.getByRole('button', { name: 'Reset your password' }).click();
      // The article's page, in its plain layout, framed inside the widget (itself framed by the site).
      const article = chat.frameLocator('iframe.cw-viewer-frame');
      await article.getByRole('heading', { name: 'Reset your password' }).waitFor();
      expect(await article.locator('strong').textContent()).toBe('Forgot password');
      expect(await article.locator('header').count()).toBe(0);
      await page.screenshot({ path: join(SHOTS, 'widget-article-viewer.png') });

      await chat.getByRole('button', { name: /Back/ }).click();
      await chat.locator('.cw-viewer').waitFor({ state: 'hidden' });
      // The popular articles were fetched once, as Chatwoot's widget asks for them.
      expect(fetched.filter((u) => u.includes('sort=views'))).toHaveLength(1);
      expect(new URL(fetched[0]).searchParams.get('per_page')).toBe('6');

      // Once the visitor has a conversation, the block folds (and can be opened again).
      await chat.getByRole('textbox', { name: 'Type your message' }).fill('I still need help');
      await chat.getByRole('button', { name: 'Send message' }).click();
      await chat.getByRole('log').getByText('I still need help').waitFor();
      // (when the service has taken the message)
      await chat.locator('details.cw-articles:not([open])').waitFor();
      expect(await chat.locator('.cw-articles-list').isVisible()).toBe(false);
      await chat.getByText('Popular articles').click();
      await chat.getByRole('button', { name: 'Ask for a refund' }).waitFor();
    },
    LONG,
  );

  it(
    "shows the articles of the widget's locale when the portal has it, in the widget's words",
    async () => {
      const german = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage();
      await german.goto(`${site.url}?locale=de`);
      await widgetLoaded(german);
      await german.getByRole('button', { name: /chat/i }).click();
      const frame = german.frameLocator('iframe[title="Chat window"]');
      await frame.getByText('Beliebte Artikel').waitFor();
      await frame.getByRole('button', { name: 'Passwort zurücksetzen' }).waitFor();
      expect(await frame.locator('.cw-articles-list button').allTextContents()).toEqual(['Passwort zurücksetzen']);
      expect(await frame.getByRole('searchbox', { name: 'Artikel durchsuchen' }).count()).toBe(1);
      expect(await frame.locator('.cw-articles-all').getAttribute('href')).toMatch(/\/de$/);
    },
    LONG,
  );
});
