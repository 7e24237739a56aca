import type { Server } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumForSuite } from '../../support/chromium.ts';
import { runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { until } from '../../support/until.ts';
import { hostSite, ok, widgetInbox, type WidgetInbox } from '../widget/fixtures.ts';

// The CSAT survey in the web widget, in a real headless Chromium, as Chatwoot's widget has it: a rating is sent
// the moment it is chosen, then a line of feedback is sent with it; the answer lands in the account's responses.

const LONG = 120_000;
const PATIENCE = { timeoutMs: 60_000, everyMs: 250 };

describe('the CSAT survey in the widget', () => {
  const executablePath = chromiumForSuite();
  let s: SeededAccount;
  let inbox: WidgetInbox;
  let browser: Browser;
  let site: { url: string; server: Server };

  beforeAll(async () => {
    if (!executablePath) return;
    const base = (await runtime()).baseUrl;
    s = await seedAccount();
    inbox = await widgetInbox(s, {}, { csat_survey_enabled: true });
    site = await hostSite(base, inbox.website_token);
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  }, LONG);

  afterAll(async () => {
    if (!executablePath) return;
    await browser?.close();
    await new Promise((r) => site?.server.close(r));
  });

  it.skipIf(!executablePath)(
    'rates on a click, then sends the feedback with the rating; the response lists both',
    async () => {
      const page = await (await browser.newContext()).newPage();
      await page.goto(site.url);
      await page.waitForFunction(() => (globalThis as any).$chatwoot?.hasLoaded === true, undefined, { timeout: 60_000 });
      await page.evaluate(() => (globalThis as any).$chatwoot.toggle('open'));
      const chat = page.frameLocator('#chatwoot_live_chat_widget');
      await chat.getByRole('textbox', { name: 'Type your message' }).fill('Where is my parcel?');
      await chat.getByRole('button', { name: 'Send message' }).click();
      const conv = await until(
        async () => (ok(await s.admin.api.get(`${s.base}/conversations?inbox_id=${inbox.id}`), 'conversations').data.payload as any[])[0],
        { what: 'the visitor’s conversation', ...PATIENCE },
      );
      ok(await s.admin.api.post(`${s.base}/conversations/${conv.id}/toggle_status`, { status: 'resolved' }), 'resolve');

      const stars = chat.getByRole('group', { name: 'Rate the conversation' });
      await stars.waitFor({ timeout: 60_000 });
      const feedback = chat.getByRole('textbox', { name: 'Tell us more...' });
      const submit = chat.locator('form.cw-csat-feedback button[type=submit]');
      // Before a rating, feedback cannot be sent.
      await feedback.fill('Kind and quick');
      expect(await submit.isDisabled()).toBe(true);
      await stars.getByRole('button', { name: 'Rating 4 of 5' }).click();
      const responses = async () => ok(await s.admin.api.get(`${s.base}/csat_survey_responses`), 'responses') as any[];
      const rated = await until(async () => (await responses()).find((r) => r.conversation_id === conv.id), {
        what: 'the rating as a response',
        ...PATIENCE,
      });
      expect(rated.rating).toBe(4);
      // The log was redrawn with the answer: the rating is fixed, the draft kept, and now it can be sent.
      await stars.getByRole('button', { name: 'Rating 4 of 5', pressed: true }).waitFor();
      expect(await stars.getByRole('button', { name: 'Rating 2 of 5' }).isDisabled()).toBe(true);
      expect(await feedback.inputValue()).toBe('Kind and quick');
      await until(async () => !(await submit.isDisabled()), { what: 'the feedback button enabled', ...PATIENCE });
      await submit.click();
      const answered = await until(
        async () => (await responses()).find((r) => r.conversation_id === conv.id && r.feedback_message === 'Kind and quick'),
        { what: 'the feedback in the response', ...PATIENCE },
      );
      expect(answered.rating).toBe(4);
      // Once given, the feedback field goes (as Chatwoot's).
      await feedback.waitFor({ state: 'detached', timeout: 60_000 });
      await page.context().close();
    },
    LONG,
  );
});
