import type { Server } from 'node:http';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumForSuite } from '../../support/chromium.ts';
import { runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { until } from '../../support/until.ts';
import { hostSite, ok, servesCable, widgetInbox, type WidgetInbox } from './fixtures.ts';

// `window.$chatwoot` as Chatwoot's SDK gives it, in a real headless Chromium: the DOM hooks sites style
// and script against, every method, and the window events, each checked on the page and, where a method
// changes the service's state, through the account API. Each test is a fresh visitor (its own context).

const LONG = 120_000;
const PATIENCE = { timeoutMs: 60_000, everyMs: 250 };
/** A site's own stylesheet, written against Chatwoot's classes. */
const SITE_CSS = '.woot-widget-bubble{background:rgb(1, 2, 3) !important}.woot-widget-holder{border:3px solid rgb(4, 5, 6)}';

type CwEvent = { name: string; detail: any };

/** The contact inbox (`source_id`) an auth token names. */
const visitorOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).source_id as string;

describe('window.$chatwoot in a browser', () => {
  const executablePath = chromiumForSuite();
  let s: SeededAccount;
  let inbox: WidgetInbox;
  let browser: Browser;
  let site: { url: string; server: Server };
  let base: string;

  beforeAll(async () => {
    if (!executablePath) return;
    base = (await runtime()).baseUrl;
    s = await seedAccount();
    inbox = await widgetInbox(s, { widget_color: '#7c3aed' });
    site = await hostSite(base, inbox.website_token, { extraCss: SITE_CSS });
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  }, LONG);

  afterAll(async () => {
    if (!executablePath) return;
    await browser?.close();
    await new Promise((r) => site?.server.close(r));
  });

  /** A new visitor on the site, once the widget has loaded. */
  async function visit(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    const page = await context.newPage();
    await page.goto(site.url);
    await loaded(page);
    return page;
  }
  const loaded = (page: Page) =>
    page.waitForFunction(() => (globalThis as any).$chatwoot?.hasLoaded === true, undefined, { timeout: 60_000 });
  const cw = <T>(page: Page, f: (api: any) => T) => page.evaluate(`(${f.toString()})(window.$chatwoot)`) as Promise<T>;
  const events = (page: Page, name: string) =>
    page.evaluate((n) => (globalThis as any).cwEvents.filter((e: CwEvent) => e.name === n), name) as Promise<CwEvent[]>;
  const chatOf = (page: Page) => page.frameLocator('#chatwoot_live_chat_widget');
  const cookie = async (page: Page, name: string) => (await page.context().cookies(site.url)).find((c) => c.name === name)?.value;
  const conversations = async () =>
    ok(await s.admin.api.get(`${s.base}/conversations?inbox_id=${inbox.id}&status=all`), 'conversations').data.payload as any[];
  const contact = async (id: number) => ok(await s.admin.api.get(`${s.base}/contacts/${id}`), 'contact').payload;

  /** The visitor writes; resolves with its conversation as the account API shows it. */
  async function write(page: Page, text: string) {
    const chat = chatOf(page);
    if (!(await cw(page, (a) => a.isOpen))) await cw(page, (a) => a.toggle('open'));
    await chat.getByRole('textbox', { name: 'Type your message' }).fill(text);
    await chat.getByRole('button', { name: 'Send message' }).click();
    await chat.getByRole('log').getByText(text).waitFor();
    return until(
      async () => {
        for (const c of await conversations()) {
          const ms = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`), 'messages').payload as any[];
          if (ms.some((m) => m.content === text)) return c;
        }
        return undefined;
      },
      { what: `the conversation with “${text}”`, ...PATIENCE },
    );
  }

  it(
    'draws Chatwoot’s elements, which the site’s own CSS styles, and toggle opens and closes the chat',
    async () => {
      const page = await visit();
      const holder = page.locator('#cw-widget-holder.woot-widget-holder.woot-elements--right');
      expect(await holder.locator('iframe#chatwoot_live_chat_widget').count()).toBe(1);
      const bubbles = page.locator('#cw-bubble-holder.woot--bubble-holder');
      const open = bubbles.locator('.woot-widget-bubble:not(.woot--close)');
      const close = bubbles.locator('.woot-widget-bubble.woot--close');
      expect(await open.count()).toBe(1);
      expect(await close.count()).toBe(1);
      // Closed: the holder and the close bubble carry woot--hide, the chat bubble shows.
      expect(await holder.getAttribute('class')).toContain('woot--hide');
      expect(await close.getAttribute('class')).toContain('woot--hide');
      expect(await open.isVisible()).toBe(true);
      expect(await holder.isVisible()).toBe(false);
      // The site's rules win as they do over Chatwoot's own.
      expect(await open.evaluate((e) => (globalThis as any).getComputedStyle(e).backgroundColor)).toBe('rgb(1, 2, 3)');
      expect(await holder.evaluate((e) => (globalThis as any).getComputedStyle(e).borderTopColor)).toBe('rgb(4, 5, 6)');

      await cw(page, (a) => a.toggle('open'));
      expect(await cw(page, (a) => a.isOpen)).toBe(true);
      await holder.waitFor({ state: 'visible' });
      expect(await holder.getAttribute('class')).not.toContain('woot--hide');
      expect(await open.getAttribute('class')).toContain('woot--hide');
      await chatOf(page).getByRole('textbox', { name: 'Type your message' }).waitFor();
      await cw(page, (a) => a.toggle('open'));
      expect(await cw(page, (a) => a.isOpen)).toBe(true);
      await cw(page, (a) => a.toggle());
      expect(await cw(page, (a) => a.isOpen)).toBe(false);
      await holder.waitFor({ state: 'hidden' });
      await cw(page, (a) => a.toggle());
      await holder.waitFor({ state: 'visible' });
      await cw(page, (a) => a.toggle('close'));
      await holder.waitFor({ state: 'hidden' });
      // Clicking the bubble, as a visitor does.
      await page.getByRole('button', { name: 'Open chat' }).click();
      await holder.waitFor({ state: 'visible' });
      await page.getByRole('button', { name: 'Close chat' }).click();
      await holder.waitFor({ state: 'hidden' });
    },
    LONG,
  );

  it(
    'toggleBubbleVisibility hides and shows the launcher for real',
    async () => {
      const page = await visit();
      const bubble = page.locator('.woot-widget-bubble').first();
      expect(await bubble.isVisible()).toBe(true);
      await cw(page, (a) => a.toggleBubbleVisibility('hide'));
      expect(await bubble.isVisible()).toBe(false);
      expect(await page.locator('.woot--bubble-holder').evaluate((e) => (globalThis as any).getComputedStyle(e).display)).toBe('none');
      expect(await page.locator('.woot--bubble-holder').getAttribute('class')).toContain('woot-hidden');
      expect(await page.locator('.woot-widget-holder').getAttribute('class')).toContain('woot-widget--without-bubble');
      expect(await cw(page, (a) => a.hideMessageBubble)).toBe(true);
      // The chat still opens from the site's own button, in the launcher's place.
      await cw(page, (a) => a.toggle('open'));
      await page.locator('.woot-widget-holder').waitFor({ state: 'visible' });
      const box = (await page.locator('.woot-widget-holder').boundingBox())!;
      expect(800 - (box.y + box.height)).toBeLessThan(40);
      await cw(page, (a) => a.toggle('close'));

      await cw(page, (a) => a.toggleBubbleVisibility('show'));
      expect(await bubble.isVisible()).toBe(true);
      expect(await page.locator('.woot-widget-holder').getAttribute('class')).not.toContain('woot-widget--without-bubble');
      expect(await cw(page, (a) => a.hideMessageBubble)).toBe(false);
    },
    LONG,
  );

  it(
    'hideMessageBubble in chatwootSettings starts without the launcher',
    async () => {
      const hidden = await hostSite(base, inbox.website_token, { settings: { hideMessageBubble: true } });
      try {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(hidden.url);
        await loaded(page);
        expect(await page.locator('.woot-widget-bubble').first().isVisible()).toBe(false);
        await cw(page, (a) => a.toggleBubbleVisibility('show'));
        expect(await page.locator('.woot-widget-bubble').first().isVisible()).toBe(true);
      } finally {
        await new Promise((r) => hidden.server.close(r));
      }
    },
    LONG,
  );

  it(
    'raises chatwoot:ready once, chatwoot:on-start-conversation and chatwoot:on-message as Chatwoot does',
    async () => {
      const page = await visit();
      expect(await events(page, 'chatwoot:ready')).toEqual([{ name: 'chatwoot:ready', detail: null }]);
      const conv = await write(page, 'Starting a chat');
      expect(await events(page, 'chatwoot:on-start-conversation')).toEqual([
        { name: 'chatwoot:on-start-conversation', detail: { hasConversation: false } },
      ]);
      ok(
        await s.admin.api.post(`${s.base}/conversations/${conv.id}/messages`, { content: 'An agent answers', message_type: 'outgoing' }),
        'reply',
      );
      const heard = await until(
        async () => (await events(page, 'chatwoot:on-message')).find((e) => e.detail?.content === 'An agent answers'),
        { what: 'chatwoot:on-message', ...PATIENCE },
      );
      expect(heard.detail).toMatchObject({ content: 'An agent answers', message_type: 1, conversation_id: conv.id });
      expect(typeof heard.detail.id).toBe('number');
      // Each message once, however it arrived; a second message still counts as the same conversation.
      await write(page, 'And another thing');
      await page.waitForTimeout(1000);
      expect((await events(page, 'chatwoot:on-message')).filter((e) => e.detail?.content === 'An agent answers')).toHaveLength(1);
      expect(await events(page, 'chatwoot:on-start-conversation')).toHaveLength(1);
      expect(await events(page, 'chatwoot:ready')).toHaveLength(1);
    },
    LONG,
  );

  it(
    'setUser, custom attributes and labels change the contact and conversation; a refused setUser raises chatwoot:error',
    async () => {
      const page = await visit();
      const conv = await write(page, 'Who am I?');
      const contactId = conv.meta.sender.id as number;
      const ident = unique('sdk-user-');
      // Chatwoot's checks, thrown on the page.
      await expect(cw(page, (a) => a.setUser('x', {}))).rejects.toThrow(/one of the keys/);
      await expect(cw(page, (a) => a.setCustomAttributes({}))).rejects.toThrow(/atleast one key/);
      await expect(cw(page, (a) => a.deleteCustomAttribute(''))).rejects.toThrow(/required/);

      await page.evaluate((id) => (globalThis as any).$chatwoot.setUser(id, { name: 'Sdk User', email: `${id}@example.com` }), ident);
      await until(async () => ((await contact(contactId)).identifier === ident ? true : undefined), {
        what: 'the identified contact',
        ...PATIENCE,
      });
      expect(await contact(contactId)).toMatchObject({ name: 'Sdk User', email: `${ident}@example.com` });
      // The fingerprint of what was sent, in Chatwoot's cookie: the same call again sends nothing.
      expect(await cookie(page, `cw_user_${inbox.website_token}`)).toMatch(/.+/);

      await cw(page, (a) => a.setCustomAttributes({ plan: 'pro', seats: 5 }));
      await until(async () => ((await contact(contactId)).custom_attributes.seats === 5 ? true : undefined), {
        what: 'the contact attributes',
        ...PATIENCE,
      });
      await cw(page, (a) => a.deleteCustomAttribute('plan'));
      await until(async () => ((await contact(contactId)).custom_attributes.plan === undefined ? true : undefined), {
        what: 'the attribute gone',
        ...PATIENCE,
      });
      expect((await contact(contactId)).custom_attributes).toEqual({ seats: 5 });

      await cw(page, (a) => a.setConversationCustomAttributes({ order: 'A-17' }));
      await until(
        async () => {
          const c = ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}`), 'conversation');
          return c.custom_attributes?.order === 'A-17' ? true : undefined;
        },
        { what: 'the conversation attribute', ...PATIENCE },
      );

      const label = unique('vip-').toLowerCase();
      ok(await s.admin.api.post(`${s.base}/labels`, { title: label }), 'label');
      const labels = async () => ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}/labels`), 'labels').payload as string[];
      await page.evaluate((l) => (globalThis as any).$chatwoot.setLabel(l), label);
      await until(async () => ((await labels()).includes(label) ? true : undefined), { what: 'the label', ...PATIENCE });
      await page.evaluate((l) => (globalThis as any).$chatwoot.removeLabel(l), label);
      await until(async () => ((await labels()).includes(label) ? undefined : true), { what: 'the label gone', ...PATIENCE });

      // A wrong identity hash: the service refuses, the page hears why, the fingerprint cookie goes.
      await page.evaluate(
        (id) => (globalThis as any).$chatwoot.setUser(`${id}-2`, { name: 'Impostor', identifier_hash: 'not-the-hash' }),
        ident,
      );
      const error = await until(async () => (await events(page, 'chatwoot:error'))[0], { what: 'chatwoot:error', ...PATIENCE });
      expect(error.detail).toMatchObject({ error: expect.stringMatching(/HMAC/) });
      expect(await cookie(page, `cw_user_${inbox.website_token}`)).toBeUndefined();
      expect((await contact(contactId)).identifier).toBe(ident);
    },
    LONG,
  );

  it(
    'setLocale and setColorScheme change the launcher and the chat page',
    async () => {
      const page = await visit();
      const chat = chatOf(page);
      await cw(page, (a) => a.setLocale('de'));
      await page.getByRole('button', { name: 'Chat öffnen' }).click();
      await chat.getByRole('textbox', { name: 'Nachricht eingeben' }).waitFor();
      expect(await page.locator('.woot-widget-bubble.woot--close').getAttribute('aria-label')).toBe('Chat schließen');
      expect(await cw(page, (a) => a.locale)).toBe('de');
      await cw(page, (a) => a.setColorScheme('dark'));
      await chat.locator('.cw[data-theme="dark"]').waitFor();
      // Anything but light, auto or dark is light (Chatwoot's getDarkMode).
      await cw(page, (a) => a.setColorScheme('purple'));
      await chat.locator('.cw[data-theme="light"]').waitFor();
      await cw(page, (a) => a.setLocale());
      await chat.getByRole('textbox', { name: 'Type your message' }).waitFor();
    },
    LONG,
  );

  it(
    'popoutChatWindow opens the same visitor’s chat in a window of its own and closes the widget',
    async () => {
      const page = await visit();
      await write(page, 'Pop me out');
      const token = await cookie(page, 'cw_conversation');
      expect(token).toMatch(/^ey/);
      const [popup] = await Promise.all([page.waitForEvent('popup'), cw(page, (a) => a.popoutChatWindow())]);
      await popup.waitForLoadState();
      const url = new URL(popup.url());
      expect(url.origin + url.pathname).toBe(`${base}/widget`);
      expect(url.searchParams.get('website_token')).toBe(inbox.website_token);
      expect(url.searchParams.get('cw_conversation')).toBe(token);
      await popup.getByRole('log').getByText('Pop me out').waitFor();
      expect(await cw(page, (a) => a.isOpen)).toBe(false);
      await popup.close();
    },
    LONG,
  );

  it(
    'reset starts a new visitor: new contact, no history, the old token gone from cookie and chat page',
    async () => {
      const page = await visit();
      const first = await write(page, 'Before the reset');
      const oldToken = await cookie(page, 'cw_conversation');
      expect(oldToken).toMatch(/^ey/);
      await page.evaluate(() => (globalThis as any).$chatwoot.setUser('reset-user', { name: 'Reset User' }));
      await until(async () => ((await contact(first.meta.sender.id)).name === 'Reset User' ? true : undefined), {
        what: 'the named contact',
        ...PATIENCE,
      });

      await cw(page, (a) => a.reset());
      expect(await cw(page, (a) => a.isOpen)).toBe(false);
      expect(await cw(page, (a) => a.resetTriggered)).toBe(true);
      expect(await cookie(page, `cw_user_${inbox.website_token}`)).toBeUndefined();
      expect(await page.locator('#chatwoot_live_chat_widget').getAttribute('src')).not.toContain('cw_conversation');
      await loaded(page);
      // A token of another visitor (each load gets a fresh token; the contact inbox it names is what counts).
      const newVisitor = await until(
        async () => {
          const t = await cookie(page, 'cw_conversation');
          return t && visitorOf(t) !== visitorOf(oldToken!) ? visitorOf(t) : undefined;
        },
        { what: 'a new visitor’s token', ...PATIENCE },
      );
      // Chatwoot raises ready once per page, not after a reset.
      expect(await events(page, 'chatwoot:ready')).toHaveLength(1);
      await cw(page, (a) => a.toggle('open'));
      const chat = chatOf(page);
      await chat.getByRole('textbox', { name: 'Type your message' }).waitFor();
      expect(await chat.getByRole('log').getByText('Before the reset').count()).toBe(0);

      const second = await write(page, 'After the reset');
      expect(second.id).not.toBe(first.id);
      expect(second.meta.sender.id).not.toBe(first.meta.sender.id);
      expect((await contact(second.meta.sender.id)).name).not.toBe('Reset User');
      // The new visitor stays across a reload; the old one does not come back.
      await page.reload();
      await loaded(page);
      expect(visitorOf((await cookie(page, 'cw_conversation'))!)).toBe(newVisitor);
      await cw(page, (a) => a.toggle('open'));
      await chat.getByRole('log').getByText('After the reset').waitFor();
      expect(await chat.getByRole('log').getByText('Before the reset').count()).toBe(0);
    },
    LONG,
  );

  it(
    'the agent’s typing indicator goes away on its own, as Chatwoot’s after 30 s (agent_typing_ms here)',
    async (ctx) => {
      if (!(await servesCable(base))) ctx.skip();
      const context = await browser.newContext();
      const app = await context.newPage();
      await app.goto(`${base}/widget?website_token=${inbox.website_token}&agent_typing_ms=1500`);
      await app.getByRole('textbox', { name: 'Type your message' }).fill('Typing test');
      await app.getByRole('button', { name: 'Send message' }).click();
      await app.locator('.cw-msg[data-id]').getByText('Typing test').waitFor();
      await app.locator('.cw[data-live="true"]').waitFor({ timeout: 60_000 });
      const conv = await until(
        async () => {
          for (const c of await conversations()) {
            const ms = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`), 'messages').payload as any[];
            if (ms.some((m) => m.content === 'Typing test')) return c;
          }
          return undefined;
        },
        { what: 'the conversation', ...PATIENCE },
      );
      const typing = app.getByText('Agent is typing…');
      ok(await s.admin.api.post(`${s.base}/conversations/${conv.id}/toggle_typing_status`, { typing_status: 'on' }), 'typing');
      await typing.waitFor({ timeout: 60_000 });
      // No typing-off is sent: the line goes by itself after the page's timeout (without one it stays).
      await typing.waitFor({ state: 'hidden', timeout: 20_000 });
      // A typing-on again shows it again.
      ok(await s.admin.api.post(`${s.base}/conversations/${conv.id}/toggle_typing_status`, { typing_status: 'on' }), 'typing');
      await typing.waitFor({ timeout: 60_000 });
    },
    LONG,
  );
});
