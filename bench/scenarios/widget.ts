import { client, type Client } from '../../test/support/http.ts';
import type { BenchWorld, Scenarios } from './types.ts';

// The web widget's API, called as the widget in a visitor's browser calls it: the website token in the
// query string, the visitor's auth token (from `config`) in X-Auth-Token.

interface Site {
  websiteToken: string;
  /** A returning visitor: the widget's client with the visitor's auth token. */
  visitor: Client;
}

const ok = <T = any>(res: { status: number; text: string; body: T }, what: string): T => {
  if (res.status !== 200) throw new Error(`bench setup ${what}: ${res.status} ${res.text}`);
  return res.body;
};

/** The bench calls `request` only; it carries the visitor's auth token. */
const withAuthToken = (api: Client, token: string): Client => ({
  ...api,
  request: (method, path, body, headers = {}) => api.request(method, path, body, { 'X-Auth-Token': token, ...headers }),
});

async function site(w: BenchWorld): Promise<Site> {
  const inbox = ok(
    await w.account.admin.api.post(`${w.account.base}/inboxes`, { name: w.unique('site'), channel: { type: 'web_widget', website_url: 'https://bench.example.com' } }),
    'inbox',
  );
  const api = client(w.baseUrl);
  const session = ok(await api.post(`/api/v1/widget/config?website_token=${inbox.website_token}`), 'widget config');
  return { websiteToken: inbox.website_token as string, visitor: withAuthToken(api, session.auth_token as string) };
}

export const widget: Scenarios = {
  // A first visit: the visitor contact and its contact inbox are made (the costlier case).
  'POST /api/v1/widget/config': {
    setup: site,
    request: (w, s: Site) => ({ method: 'POST', path: `/api/v1/widget/config?website_token=${s.websiteToken}`, client: client(w.baseUrl) }),
  },
  'POST /api/v1/widget/events': {
    setup: site,
    request: (_w, s: Site) => ({
      method: 'POST',
      path: `/api/v1/widget/events?website_token=${s.websiteToken}`,
      body: { name: 'webwidget.triggered', event_info: { initiated_at: { timestamp: new Date().toString() }, referer: 'https://bench.example.com/' } },
      client: s.visitor,
    }),
  },
};
