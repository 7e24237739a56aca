import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { client, runtime, unique, type Client, type SeededAccount } from '../../support/runtime.ts';
import { ok } from '../conversations/fixtures.ts';

// Setups of the widget tests: a web widget inbox (made by the account's administrator) and the widget
// itself, which knows nothing but the inbox's website token and, after its first call, its auth token.

export { ok };

export interface WidgetInbox {
  id: number;
  name: string;
  website_token: string;
}

/**
 * A web widget inbox. Chatwoot's email collect prompt (on by default: two template messages after a visitor's first
 * message while it has no email) is off unless `inbox` turns it on, so that a test's visitors see only the messages
 * it makes; test/e2e/widget/email-collect.test.ts tests the prompt with the inbox's defaults.
 */
export async function widgetInbox(
  s: SeededAccount,
  channel: Record<string, unknown> = {},
  inbox: Record<string, unknown> = {},
): Promise<WidgetInbox> {
  const body = {
    name: unique('site-'),
    enable_email_collect: false,
    ...inbox,
    channel: { type: 'web_widget', website_url: 'https://example.com', ...channel },
  };
  return ok(await s.admin.api.post(`${s.base}/inboxes`, body), 'create web widget inbox');
}

/** A client without credentials, as the widget in a visitor's browser is. */
export async function browser(): Promise<Client> {
  return client((await runtime()).baseUrl);
}

export const configPath = (websiteToken: string) => `/api/v1/widget/config?website_token=${encodeURIComponent(websiteToken)}`;
export const eventsPath = (websiteToken: string, query = '') =>
  `/api/v1/widget/events?website_token=${encodeURIComponent(websiteToken)}${query}`;

export interface WidgetSession {
  auth_token: string;
  contact: { id: number; name: string; email: string | null; phone_number: string | null; pubsub_token: string; source_id: string };
  website_channel_config: Record<string, any>;
}

/** The widget's first call on a page: its settings, its visitor and the visitor's auth token. */
export async function openWidget(api: Client, inbox: WidgetInbox, authToken?: string): Promise<WidgetSession> {
  return ok(await api.post(configPath(inbox.website_token), undefined, authToken ? { 'X-Auth-Token': authToken } : {}), 'widget config');
}

export const EVENT_INFO = {
  initiated_at: { timestamp: 'Mon Jan 05 2026 10:00:00 GMT+0100' },
  referer: 'https://example.com/pricing',
  widget_language: 'de',
  browser_language: 'de',
  browser: { browser_name: 'Firefox', browser_version: '121.0', device_name: 'Unknown', platform_name: 'Linux', platform_version: '0' },
};

export const trigger = (
  api: Client,
  inbox: WidgetInbox,
  authToken: string | undefined,
  body: unknown = { name: 'webwidget.triggered', event_info: EVENT_INFO },
) => api.post(eventsPath(inbox.website_token), body, authToken === undefined ? {} : { 'X-Auth-Token': authToken });

/** A visitor's widget calls (`/api/v1/widget/...`): each carries the website token and, when given, the auth token. */
export function widgetApi(api: Client, inbox: WidgetInbox, token: string | undefined) {
  const url = (path: string, query = '') => `/api/v1/widget${path}?website_token=${encodeURIComponent(inbox.website_token)}${query}`;
  const h = (): Record<string, string> => (token ? { 'X-Auth-Token': token } : {});
  return {
    get: (path: string, query = '') => api.get(url(path, query), h()),
    post: (path: string, body?: unknown) => api.post(url(path), body, h()),
    patch: (path: string, body?: unknown) => api.patch(url(path), body, h()),
    delete: (path: string) => api.delete(url(path), undefined, h()),
  };
}

/**
 * A website for the browser tests: every path serves one page with Chatwoot's snippet (and `settings` as
 * `window.chatwootSettings`, or a function of the page's window that the page runs to make them), on an
 * origin of its own (127.0.0.1, port 0). The page records Chatwoot's
 * window events in `window.cwEvents` (`{name, detail}`), and `extraCss` is a site's own stylesheet.
 */
export async function hostSite(
  baseUrl: string,
  websiteToken: string,
  opts: { settings?: Record<string, unknown> | ((w: { location: { search: string } }) => Record<string, unknown>); extraCss?: string } = {},
): Promise<{ url: string; server: Server }> {
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>Acme</title><style>${opts.extraCss ?? ''}</style></head>
<body style="font-family:sans-serif;background:#f6f7f9"><h1>Acme Inc.</h1><p>Welcome to our website.</p>
<script>
  window.chatwootSettings = ${typeof opts.settings === 'function' ? `(${opts.settings.toString()})(window)` : JSON.stringify(opts.settings ?? { position: 'right', locale: 'en' })};
  window.cwEvents = [];
  ['chatwoot:ready', 'chatwoot:on-message', 'chatwoot:on-start-conversation', 'chatwoot:error'].forEach(function (name) {
    window.addEventListener(name, function (e) { window.cwEvents.push({ name: name, detail: e.detail }); });
  });
  (function(d,t){var BASE_URL=${JSON.stringify(baseUrl)};var g=d.createElement(t),s=d.getElementsByTagName(t)[0];
  g.src=BASE_URL+"/packs/js/sdk.js";g.defer=true;g.async=true;s.parentNode.insertBefore(g,s);
  g.onload=function(){window.chatwootSDK.run({websiteToken:${JSON.stringify(websiteToken)},baseUrl:BASE_URL})}})(document,"script");
</script></body></html>`;
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** Waits until the host page's widget has loaded and the page heard `chatwoot:ready`. */
export const widgetLoaded = (page: Page) =>
  page.waitForFunction(
    () => (globalThis as any).cwEvents.some((e: any) => e.name === 'chatwoot:ready') && (globalThis as any).$chatwoot?.hasLoaded,
    undefined,
    { timeout: 60_000 },
  );

/** Whether `/cable` answers a WebSocket handshake (101) on this runtime. */
export function servesCable(baseUrl: string): Promise<boolean> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const req = request({
      host: hostname,
      port,
      path: '/cable',
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve(true);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(false);
    });
    req.on('error', () => resolve(false));
    req.end();
  });
}
