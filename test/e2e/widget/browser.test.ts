import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser, type FrameLocator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumForSuite } from '../../support/chromium.ts';
import { runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { until } from '../../support/until.ts';
import { browser as browserClient, hostSite, ok, servesCable, widgetInbox, widgetLoaded, type WidgetInbox } from './fixtures.ts';

// The widget in a real headless Chromium, embedded the way a website embeds it: a host page on an origin
// of its own loads `/packs/js/sdk.js` with Chatwoot's snippet. What the visitor does is checked through
// the account API, and what an agent does there must show up in the widget without a reload.
// Screenshots of the open widget go to screenshots/ (git-ignored) for people to look at.

const SHOTS = join(import.meta.dirname, '../../../screenshots');
const LONG = 120_000;
// Waits on the service's state read through the API: every quarter second, for up to a minute.
const PATIENCE = { timeoutMs: 60_000, everyMs: 250 };

describe('widget in a browser', () => {
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
    inbox = await widgetInbox(s, { widget_color: '#7c3aed', welcome_title: 'Hi there', welcome_tagline: 'Ask us anything' });
    ok(
      await s.admin.api.patch(`${s.base}/inboxes/${inbox.id}`, {
        greeting_enabled: true,
        greeting_message: 'Welcome to Acme! How can we help?',
      }),
      'greeting',
    );
    site = await hostSite(rt.baseUrl, inbox.website_token);
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage();
    chat = page.frameLocator('iframe[title="Chat window"]');
  }, LONG);

  afterAll(async () => {
    if (!executablePath) return;
    await browser?.close();
    await new Promise((r) => site?.server.close(r));
  });

  const loaded = () => widgetLoaded(page);
  const conversations = async () =>
    ok(await s.admin.api.get(`${s.base}/conversations?inbox_id=${inbox.id}&status=all`), 'conversations').data.payload as any[];
  const messages = async (id: number) => ok(await s.admin.api.get(`${s.base}/conversations/${id}/messages`), 'messages').payload as any[];

  let conversationId: number;

  it(
    'opens from the launcher, sends a message, and shows the agent’s reply live',
    async () => {
      await page.goto(site.url);
      await loaded();
      const launcher = page.getByRole('button', { name: /chat/i });
      await launcher.click();
      await chat.getByText('Welcome to Acme! How can we help?').waitFor();
      await chat.getByRole('textbox', { name: 'Type your message' }).fill('Hello from the browser');
      await chat.getByRole('button', { name: 'Send message' }).click();
      await chat.getByRole('log').getByText('Hello from the browser').waitFor();

      const conv = await until(async () => (await conversations())[0], { what: 'the conversation', ...PATIENCE });
      conversationId = conv.id;
      expect(conv.inbox_id).toBe(inbox.id);
      expect((await messages(conv.id)).map((m) => m.content)).toContain('Hello from the browser');

      ok(
        await s.admin.api.post(`${s.base}/conversations/${conv.id}/messages`, { content: 'Hi! An agent here.', message_type: 'outgoing' }),
        'reply',
      );
      await chat.getByRole('log').getByText('Hi! An agent here.').waitFor({ timeout: 60_000 });
      // The host page heard of it.
      await page.waitForFunction(() =>
        (globalThis as any).cwEvents.some((e: any) => e.name === 'chatwoot:on-message' && e.detail.content === 'Hi! An agent here.'),
      );
      await page.screenshot({ path: join(SHOTS, 'widget-open.png') });
    },
    LONG,
  );

  it(
    'setUser links the visitor’s contact to the website’s user',
    async () => {
      const ident = unique('web-user-');
      await page.evaluate(
        ([id]) => (globalThis as any).$chatwoot.setUser(id, { name: 'Browser User', email: `${id}@example.com` }),
        [ident],
      );
      const contactId = (await conversations()).find((c) => c.id === conversationId)!.meta.sender.id;
      const contact = await until(
        async () => {
          const c = ok(await s.admin.api.get(`${s.base}/contacts/${contactId}`), 'contact').payload;
          return c.identifier === ident ? c : undefined;
        },
        { what: 'the identified contact', ...PATIENCE },
      );
      expect(contact).toMatchObject({ name: 'Browser User', email: `${ident}@example.com` });

      await page.evaluate(() => (globalThis as any).$chatwoot.setCustomAttributes({ plan: 'enterprise' }));
      await until(
        async () => {
          const c = ok(await s.admin.api.get(`${s.base}/contacts/${contactId}`), 'contact').payload;
          return c.custom_attributes.plan === 'enterprise' ? true : undefined;
        },
        { what: 'the custom attribute', ...PATIENCE },
      );
    },
    LONG,
  );

  it(
    'keeps the conversation across a reload',
    async () => {
      await page.reload();
      await loaded();
      await page.getByRole('button', { name: /chat/i }).click();
      await chat.getByRole('log').getByText('Hello from the browser').waitFor();
      await chat.getByRole('log').getByText('Hi! An agent here.').waitFor();
      expect(await conversations()).toHaveLength(1);
    },
    LONG,
  );

  it(
    'sends an attachment that the agent can download',
    async () => {
      await chat
        .locator('input[type=file]')
        .setInputFiles({ name: 'hello.txt', mimeType: 'text/plain', buffer: Buffer.from('attached from the widget') });
      const withFile = await until(async () => (await messages(conversationId)).find((m) => m.attachments?.length), {
        what: 'the attachment',
        ...PATIENCE,
      });
      const url = withFile.attachments[0].data_url as string;
      expect(await (await fetch(url)).text()).toBe('attached from the widget');
      await chat.getByRole('log').locator(`a[href="${url}"]`).waitFor();
    },
    LONG,
  );

  it(
    'counts unread replies on the bubble while closed, and draws dark',
    async () => {
      await page.getByRole('button', { name: 'Close chat' }).first().click();
      ok(
        await s.admin.api.post(`${s.base}/conversations/${conversationId}/messages`, {
          content: 'Are you still there?',
          message_type: 'outgoing',
        }),
        'reply',
      );
      await page.locator('.cw-badge:not([hidden])').getByText('1').waitFor({ timeout: 60_000 });
      await page.getByRole('button', { name: /open chat/i }).click();
      await chat.getByRole('log').getByText('Are you still there?').waitFor();
      await page.evaluate(() => (globalThis as any).$chatwoot.setColorScheme('dark'));
      await chat.locator('.cw[data-theme="dark"]').waitFor();
      await page.screenshot({ path: join(SHOTS, 'widget-dark.png') });
    },
    LONG,
  );

  it(
    'a mobile webview drives the chat page itself with chatwoot-widget: messages',
    async () => {
      const app = await (await browser.newContext({ viewport: { width: 390, height: 700 } })).newPage();
      await app.goto(`${(await runtime()).baseUrl}/widget?website_token=${inbox.website_token}`);
      const box = app.getByRole('textbox', { name: 'Type your message' });
      await box.waitFor();
      await box.fill('Hello from the app');
      await app.getByRole('button', { name: 'Send message' }).click();
      await app.getByRole('log').getByText('Hello from the app').waitFor();
      const conv = await until(async () => (await conversations()).find((c) => c.id !== conversationId), {
        what: 'the app conversation',
        ...PATIENCE,
      });
      const ident = unique('app-user-');
      const say = (m: unknown) =>
        app.evaluate((data) => (globalThis as any).postMessage(data, '*'), `chatwoot-widget:${JSON.stringify(m)}`);
      await say({ event: 'set-user', identifier: ident, user: { name: 'App User' } });
      await say({ event: 'set-custom-attributes', customAttributes: { app_version: '2.1' } });
      await say({ event: 'set-color-scheme', darkMode: 'dark' });
      await app.locator('.cw[data-theme="dark"]').waitFor();
      const contact = await until(
        async () => {
          const c = ok(await s.admin.api.get(`${s.base}/contacts/${conv.meta.sender.id}`), 'contact').payload;
          return c.identifier === ident && c.custom_attributes.app_version === '2.1' ? c : undefined;
        },
        { what: 'the app user', ...PATIENCE },
      );
      expect(contact.name).toBe('App User');
      await app.screenshot({ path: join(SHOTS, 'widget-webview.png') });
      await app.context().close();
    },
    LONG,
  );

  it(
    'asks the pre-chat form first when the inbox enables it',
    async () => {
      const asking = await widgetInbox(s, {
        pre_chat_form_enabled: true,
        pre_chat_form_options: {
          pre_chat_message: 'Tell us who you are',
          pre_chat_fields: [
            { field_type: 'standard', label: 'Email Id', name: 'emailAddress', type: 'email', required: true, enabled: true },
            { field_type: 'standard', label: 'Full name', name: 'fullName', type: 'text', required: false, enabled: true },
          ],
        },
      });
      const app = await (await browser.newContext()).newPage();
      await app.goto(`${(await runtime()).baseUrl}/widget?website_token=${asking.website_token}`);
      await app.getByText('Tell us who you are').waitFor();
      expect(await app.getByRole('textbox', { name: 'Type your message' }).isVisible()).toBe(false);
      const email = `${unique('pre')}@example.com`;
      await app.getByLabel('Email Id').fill(email);
      await app.getByLabel('Full name').fill('Pre Chat');
      await app.getByRole('textbox', { name: 'Message' }).fill('I filled the form');
      await app.getByRole('button', { name: 'Start conversation' }).click();
      await app.getByRole('log').getByText('I filled the form').waitFor();
      await app.getByRole('textbox', { name: 'Type your message' }).waitFor();
      const conv = await until(
        async () => {
          const list = ok(await s.admin.api.get(`${s.base}/conversations?inbox_id=${asking.id}&status=all`), 'conversations').data
            .payload as any[];
          return list[0];
        },
        { what: 'the pre-chat conversation', ...PATIENCE },
      );
      const contact = ok(await s.admin.api.get(`${s.base}/contacts/${conv.meta.sender.id}`), 'contact').payload;
      expect(contact).toMatchObject({ email, name: 'Pre Chat' });
      await app.context().close();
    },
    LONG,
  );

  it(
    'hears replies and the agent typing over /cable when the runtime serves it',
    async (ctx) => {
      const base = (await runtime()).baseUrl;
      if (!(await servesCable(base))) ctx.skip();
      const app = await (await browser.newContext()).newPage();
      await app.goto(`${base}/widget?website_token=${inbox.website_token}`);
      await app.getByRole('textbox', { name: 'Type your message' }).fill('Over the socket?');
      await app.getByRole('button', { name: 'Send message' }).click();
      // Stored: the bubble has the message's id.
      await app.locator('.cw-msg[data-id]').getByText('Over the socket?').waitFor();
      await app.locator('.cw[data-live="true"]').waitFor({ timeout: 60_000 });
      const token = await app.evaluate((key) => (globalThis as any).localStorage.getItem(key), `cw_conversation_${inbox.website_token}`);
      const conv = ok(
        await (await browserClient()).get(`/api/v1/widget/conversations?website_token=${inbox.website_token}`, { 'X-Auth-Token': token! }),
        'widget conversation',
      );
      ok(await s.admin.api.post(`${s.base}/conversations/${conv.id}/toggle_typing_status`, { typing_status: 'on' }), 'typing');
      await app.getByText('Agent is typing…').waitFor({ timeout: 60_000 });
      ok(
        await s.admin.api.post(`${s.base}/conversations/${conv.id}/messages`, { content: 'Yes, live.', message_type: 'outgoing' }),
        'reply',
      );
      await app.getByRole('log').getByText('Yes, live.').waitFor({ timeout: 60_000 });
      expect(await app.locator('.cw').getAttribute('data-live')).toBe('true');
      await app.context().close();
    },
    LONG,
  );
});
