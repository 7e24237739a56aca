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
