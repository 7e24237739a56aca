import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumForSuite } from '../../support/chromium.ts';
import { runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';
import { hostSite, ok, widgetInbox, widgetLoaded, type WidgetInbox } from './fixtures.ts';

// Campaigns and locales in a real headless Chromium: a host site (fixtures.ts hostSite: every path the same
// page with Chatwoot's snippet; `?locale=` sets chatwootSettings.locale) on an origin of its own.

const SHOTS = join(import.meta.dirname, '../../../screenshots');
const LONG = 120_000;

describe('widget campaigns and locales in a browser', () => {
  const executablePath = chromiumForSuite();
  let s: SeededAccount;
  let inbox: WidgetInbox;
  let browser: Browser;
  let site: { url: string; server: Server };
  let adminName: string;

  beforeAll(async () => {
    if (!executablePath) return;
    mkdirSync(SHOTS, { recursive: true });
    const rt = await runtime();
    s = await seedAccount();
    inbox = await widgetInbox(s, { widget_color: '#0f766e', welcome_title: 'Acme support' });
    // `?locale=` on any page sets chatwootSettings.locale.
    site = await hostSite(rt.baseUrl, inbox.website_token, {
      settings: (w) => ({ position: 'right', locale: new URLSearchParams(w.location.search).get('locale') || 'en' }),
    });
    adminName = ok(await s.admin.api.get('/api/v1/profile'), 'profile').name;
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  }, LONG);

  afterAll(async () => {
    if (!executablePath) return;
    await browser?.close();
    await new Promise((r) => site?.server.close(r));
  });

  /** A fresh visitor (its own storage) on a page of the site. */
  async function visit(path: string): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage();
    await page.goto(site.url + path);
    await widgetLoaded(page);
    return page;
  }

  it(
    'shows an ongoing campaign on its page after the time on page; opening runs it: the conversation starts with its message',
    async () => {
      const campaign = ok(
        await s.admin.api.post(`${s.base}/campaigns`, {
          title: 'Pricing',
          message: 'Comparing plans? We can help you choose.',
          inbox_id: inbox.id,
          sender_id: s.admin.id,
          trigger_rules: { url: `${site.url}pricing/`, time_on_page: 1 },
        }),
        'campaign',
      );
      const page = await visit('pricing');
      // The card above the launcher: the sender and the message (trailing slash of the rule ignored).
      const card = page.getByRole('button', { name: `Message from ${adminName} Comparing plans? We can help you choose.` });
      await card.waitFor({ timeout: 60_000 });
      expect(await page.locator('.cw-badge').textContent()).toBe('1');
      await page.screenshot({ path: join(SHOTS, 'widget-campaign.png') });

      await card.click();
      const chat = page.frameLocator('iframe[title="Chat window"]');
      await chat.getByRole('log').getByText('Comparing plans? We can help you choose.').waitFor();
      expect(await card.count()).toBe(0);
      // campaign.triggered made the conversation, with the campaign's message from its sender.
      const conv = await untilState(
        async () =>
          (ok(await s.admin.api.get(`${s.base}/conversations?inbox_id=${inbox.id}&status=all`), 'conversations').data.payload as any[])[0],
        (c) => c !== undefined,
        60_000,
      );
      expect(conv.additional_attributes).toMatchObject({ campaign_id: campaign.id });
      const messages = ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}/messages`), 'messages').payload as any[];
      expect(messages.map((m) => [m.content, m.message_type, m.sender?.id])).toEqual([
        ['Comparing plans? We can help you choose.', 1, s.admin.id],
      ]);
      // The visitor answers in the same conversation.
      await chat.getByRole('textbox', { name: 'Type your message' }).fill('Which plan has SSO?');
      await chat.getByRole('button', { name: 'Send message' }).click();
      await untilState(
        async () => ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}/messages`), 'messages').payload as any[],
        (ms) => ms.some((m) => m.content === 'Which plan has SSO?' && m.message_type === 0),
        60_000,
      );
      await page.screenshot({ path: join(SHOTS, 'widget-campaign-open.png') });
      await page.context().close();
    },
    LONG,
  );

  it(
    'speaks the locale of chatwootSettings and switches with $chatwoot.setLocale',
    async () => {
      const page = await visit('about?locale=de');
      const chat = page.frameLocator('iframe[title="Chat window"]');
      await page.getByRole('button', { name: 'Chat öffnen' }).click();
      await chat.getByRole('textbox', { name: 'Nachricht eingeben' }).waitFor();
      await chat.getByRole('button', { name: 'Nachricht senden' }).waitFor();
      expect(await chat.locator('.cw-status').textContent()).toBe('Antwortet normalerweise in wenigen Minuten');
      await page.screenshot({ path: join(SHOTS, 'widget-de.png') });

      const expectations: [string, string, string, string][] = [
        ['fr', 'Saisissez votre message', 'Envoyer le message', 'Fermer le chat'],
        ['pt-BR', 'Digite sua mensagem', 'Enviar mensagem', 'Fechar chat'],
        ['es', 'Escribe tu mensaje', 'Enviar mensaje', 'Cerrar chat'],
        ['xx', 'Type your message', 'Send message', 'Close chat'],
      ];
      for (const [locale, box, send, close] of expectations) {
        await page.evaluate((l) => (globalThis as any).$chatwoot.setLocale(l), locale);
        await chat.getByRole('textbox', { name: box }).waitFor();
        await chat.getByRole('button', { name: send }).waitFor();
        expect(await page.locator('.woot-widget-bubble.woot--close').getAttribute('aria-label')).toBe(close);
      }
      // Sending still works in the chosen words.
      await page.evaluate(() => (globalThis as any).$chatwoot.setLocale('fr'));
      await chat.getByRole('textbox', { name: 'Saisissez votre message' }).fill('Bonjour !');
      await chat.getByRole('button', { name: 'Envoyer le message' }).click();
      await chat.getByRole('log', { name: 'Messages' }).getByText('Bonjour !').waitFor();
      await page.screenshot({ path: join(SHOTS, 'widget-fr.png') });
      await page.context().close();
    },
    LONG,
  );
});
