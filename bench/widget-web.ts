import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { buildWidget } from '../web/widget/build.ts';
import type { BenchWorld } from './scenarios/types.ts';

// The widget's weight and speed as a visitor gets it: gzip bytes of the loader and the chat page's
// files (and of the help center's public pages, which a visitor opens on a phone just the same), and, where Chromium is installed, the chat page's first contentful paint and the time until its
// composer is usable (median of a few fresh page loads against the local runtime).

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const LOADS = 5;

export interface WidgetWebResult {
  loaderGzipBytes: number;
  chatGzipBytes: number;
  firstPaintMs: number | null;
  readyMs: number | null;
  /** A help center locale home (ten categories, thirty articles) and one article page, gzip bytes. */
  helpCenterHomeGzipBytes?: number;
  helpCenterArticleGzipBytes?: number;
}

/** The help center's pages as sent (gzip): a portal like the bench scenarios' (bench/scenarios/help-center.ts). */
async function helpCenterWeight(w: BenchWorld): Promise<{ home: number; article: number }> {
  const { helpCenterScenarios } = await import('./scenarios/help-center.ts');
  const sc = helpCenterScenarios['GET /hc/{slug}/articles/{article_slug}'];
  const h = await sc.setup!(w);
  const weigh = async (path: string) => {
    const res = await fetch(w.baseUrl + path);
    if (res.status !== 200) throw new Error(`help center page ${path}: ${res.status}`);
    return gzipSync(Buffer.from(await res.arrayBuffer())).length;
  };
  return { home: await weigh(`/hc/${h.slug}/en`), article: await weigh(sc.request(w, h, undefined, 0).path) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function benchWidgetWeb(w: BenchWorld): Promise<WidgetWebResult> {
  const [sdk, script, styles] = buildWidget().assets;
  const result: WidgetWebResult = {
    loaderGzipBytes: sdk.gzipBytes,
    chatGzipBytes: script.gzipBytes + styles.gzipBytes,
    firstPaintMs: null,
    readyMs: null,
  };
  const hc = await helpCenterWeight(w);
  result.helpCenterHomeGzipBytes = hc.home;
  result.helpCenterArticleGzipBytes = hc.article;
  if (!existsSync(CHROMIUM)) return result;
  const inbox = await w.account.admin.api.post(`${w.account.base}/inboxes`, {
    name: w.unique('paint'),
    channel: { type: 'web_widget', website_url: 'https://bench.example.com' },
  });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  try {
    const paints: number[] = [];
    const ready: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${w.baseUrl}/widget?website_token=${inbox.body.website_token}`);
      await page.getByRole('textbox', { name: 'Type your message' }).waitFor();
      const t = await page.evaluate(() => ({
        paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1,
        now: performance.now(),
      }));
      if (t.paint >= 0) paints.push(t.paint);
      ready.push(t.now);
      await context.close();
    }
    result.firstPaintMs = paints.length ? Math.round(median(paints)) : null;
    result.readyMs = Math.round(median(ready));
  } finally {
    await browser.close();
  }
  return result;
}

export function widgetWebMarkdown(r: WidgetWebResult): string {
  const kb = (n: number) => (n / 1024).toFixed(1);
  return [
    '## Web widget',
    '',
    'What a visitor downloads (gzip) and how soon the chat page draws, measured in headless Chromium against the local runtime',
    `(median of ${LOADS} fresh loads of \`/widget\`; "usable": the composer is on screen after config and history loaded).`,
    '',
    '| loader `sdk.js` KiB gzip | chat page JS+CSS KiB gzip | first contentful paint ms | usable ms |',
    '|---|---|---|---|',
    `| ${kb(r.loaderGzipBytes)} | ${kb(r.chatGzipBytes)} | ${r.firstPaintMs ?? 'n/a'} | ${r.readyMs ?? 'n/a'} |`,
    '',
    "The help center's public pages, as sent (gzip, no script, no other file): a locale home of ten categories and thirty articles, and an article page.",
    '',
    '| help center home KiB gzip | article page KiB gzip |',
    '|---|---|',
    `| ${r.helpCenterHomeGzipBytes === undefined ? 'n/a' : kb(r.helpCenterHomeGzipBytes)} | ${r.helpCenterArticleGzipBytes === undefined ? 'n/a' : kb(r.helpCenterArticleGzipBytes)} |`,
  ].join('\n');
}
