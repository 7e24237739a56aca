import { client, type Client } from '../../test/support/http.ts';
import { chatScript } from '../../web/widget/dist/assets.ts';
import type { BenchWorld, Scenarios } from './types.ts';

// The web widget's API, called as the widget in a visitor's browser calls it: the website token in the
// query string, the visitor's auth token (from `config`) in X-Auth-Token.

interface Site {
  websiteToken: string;
  /** The account's administrator client, for setup steps an agent would do. */
  admin: Client;
  base: string;
  /** A returning visitor: the widget's client with the visitor's auth token. */
  visitor: Client;
}

const ok = <T = any>(res: { status: number; text: string; body: T }, what: string): T => {
  if (res.status !== 200) throw new Error(`bench setup ${what}: ${res.status} ${res.text}`);
  return res.body;
};

/** Every call of the visitor (the bench's `request` and the setups' verbs alike) carries its auth token. */
const withAuthToken = (api: Client, token: string): Client => {
  const request: Client['request'] = (method, path, body, headers = {}) =>
    api.request(method, path, body, { 'X-Auth-Token': token, ...headers });
  return {
    request,
    get: (path, headers) => request('GET', path, undefined, headers),
    post: (path, body, headers) => request('POST', path, body, headers),
    patch: (path, body, headers) => request('PATCH', path, body, headers),
    put: (path, body, headers) => request('PUT', path, body, headers),
    delete: (path, body, headers) => request('DELETE', path, body, headers),
  };
};

async function site(w: BenchWorld): Promise<Site> {
  const inbox = ok(
    await w.account.admin.api.post(`${w.account.base}/inboxes`, {
      name: w.unique('site'),
      channel: { type: 'web_widget', website_url: 'https://bench.example.com' },
    }),
    'inbox',
  );
  const api = client(w.baseUrl);
  const session = ok(await api.post(`/api/v1/widget/config?website_token=${inbox.website_token}`), 'widget config');
  return {
    websiteToken: inbox.website_token as string,
    visitor: withAuthToken(api, session.auth_token as string),
    admin: w.account.admin.api,
    base: w.account.base,
  };
}

/** A visitor in a conversation with `messages` of its own messages. */
async function chatting(w: BenchWorld, messages = 1): Promise<Site & { conversation: number }> {
  const s = await site(w);
  let conversation = 0;
  for (let i = 0; i < messages; i++)
    conversation = ok(await s.visitor.post(at(s, '/messages'), { message: { content: `Hello ${i}` } }), 'message').conversation_id;
  return { ...s, conversation };
}

const at = (s: Site, path: string) => `/api/v1/widget${path}?website_token=${s.websiteToken}`;

/** A widget call by the visitor. */
const call = (method: string, path: string, body?: unknown, status?: number) => (_w: BenchWorld, s: Site) => ({
  method,
  path: at(s, path),
  body,
  client: s.visitor,
  ...(status ? { status } : {}),
});

async function withSelect(w: BenchWorld) {
  const s = await chatting(w);
  const m = ok(
    await s.admin.post(`${s.base}/conversations/${s.conversation}/messages`, {
      content: 'Pick',
      content_type: 'input_select',
      content_attributes: { items: [{ title: 'A', value: 'a' }] },
    }),
    'select',
  );
  return { ...s, message: m.id as number };
}

/** A site whose inbox runs three ongoing campaigns. */
async function withCampaigns(w: BenchWorld) {
  const s = await site(w);
  const inbox = ok(await s.admin.get(`${s.base}/inboxes`), 'inboxes').payload.find((i: any) => i.website_token === s.websiteToken);
  for (let i = 0; i < 3; i++) {
    ok(
      await s.admin.post(`${s.base}/campaigns`, {
        title: `Campaign ${i}`,
        message: `Hello from campaign ${i}`,
        inbox_id: inbox.id,
        sender_id: w.account.admin.id,
        trigger_rules: { url: `https://bench.example.com/page-${i}`, time_on_page: 5 },
      }),
      'campaign',
    );
  }
  return s;
}

async function withLabel(w: BenchWorld) {
  const s = await chatting(w);
  const title = w.unique('lbl').toLowerCase();
  ok(await s.admin.post(`${s.base}/labels`, { title }), 'label');
  return { ...s, label: title };
}

const W = '/api/v1/widget';

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
      body: {
        name: 'webwidget.triggered',
        event_info: { initiated_at: { timestamp: new Date().toString() }, referer: 'https://bench.example.com/' },
      },
      client: s.visitor,
    }),
  },
  [`GET ${W}/conversations`]: { setup: (w) => chatting(w), request: call('GET', '/conversations') },
  // The pre-chat form: contact details and the first message, a new conversation each time.
  [`POST ${W}/conversations`]: {
    setup: site,
    request: (_w, s: Site, _p, i) =>
      call('POST', '/conversations', { contact: { name: `Visitor ${i}` }, message: { content: `Hello ${i}` } })(_w, s),
  },
  [`POST ${W}/conversations/toggle_typing`]: {
    setup: (w) => chatting(w),
    request: call('POST', '/conversations/toggle_typing', { typing_status: 'on' }),
  },
  [`POST ${W}/conversations/update_last_seen`]: { setup: (w) => chatting(w), request: call('POST', '/conversations/update_last_seen') },
  [`POST ${W}/conversations/set_custom_attributes`]: {
    setup: (w) => chatting(w),
    request: (_w, s: Site, _p, i) => call('POST', '/conversations/set_custom_attributes', { custom_attributes: { n: i } })(_w, s),
  },
  [`POST ${W}/conversations/destroy_custom_attributes`]: {
    setup: (w) => chatting(w),
    prepare: (_w, s: Site) => s.visitor.post(at(s, '/conversations/set_custom_attributes'), { custom_attributes: { a: 1, b: 2 } }),
    request: call('POST', '/conversations/destroy_custom_attributes', { custom_attribute: ['a'] }),
  },
  [`GET ${W}/conversations/toggle_status`]: { setup: (w) => chatting(w), request: call('GET', '/conversations/toggle_status') },
  [`POST ${W}/conversations/transcript`]: { setup: (w) => chatting(w), request: call('POST', '/conversations/transcript') },
  [`GET ${W}/messages`]: { setup: (w) => chatting(w, 25), request: call('GET', '/messages') },
  [`POST ${W}/messages`]: {
    setup: (w) => chatting(w),
    request: (_w, s: Site, _p, i) => call('POST', '/messages', { message: { content: `More ${i}` } })(_w, s),
  },
  [`PATCH ${W}/messages/{id}`]: {
    setup: withSelect,
    request: (_w, s: Site & { message: number }) =>
      call('PATCH', `/messages/${s.message}`, { message: { submitted_values: [{ title: 'A', value: 'a' }] } })(_w, s),
  },
  [`PUT ${W}/messages/{id}`]: {
    setup: withSelect,
    request: (_w, s: Site & { message: number }) =>
      call('PUT', `/messages/${s.message}`, { message: { submitted_values: [{ title: 'A', value: 'a' }] } })(_w, s),
  },
  [`GET ${W}/contact`]: { setup: site, request: call('GET', '/contact') },
  [`PATCH ${W}/contact`]: {
    setup: site,
    request: (_w, s: Site, _p, i) => call('PATCH', '/contact', { name: `Visitor ${i}`, custom_attributes: { n: i } })(_w, s),
  },
  [`PUT ${W}/contact`]: { setup: site, request: (_w, s: Site, _p, i) => call('PUT', '/contact', { name: `Visitor ${i}` })(_w, s) },
  // The same user again (the SDK calls setUser on every page load).
  [`PATCH ${W}/contact/set_user`]: {
    setup: async (w) => ({ ...(await site(w)), identifier: w.unique('user') }),
    request: (_w, s: Site & { identifier: string }) =>
      call('PATCH', '/contact/set_user', { identifier: s.identifier, name: 'Bench User' })(_w, s),
  },
  [`POST ${W}/contact/destroy_custom_attributes`]: {
    setup: site,
    prepare: (_w, s: Site) => s.visitor.patch(at(s, '/contact'), { custom_attributes: { a: 1, b: 2 } }),
    request: call('POST', '/contact/destroy_custom_attributes', { custom_attributes: ['a'] }),
  },
  [`GET ${W}/inbox_members`]: { setup: site, request: call('GET', '/inbox_members') },
  // Three enabled campaigns of the inbox, with a sender.
  [`GET ${W}/campaigns`]: { setup: withCampaigns, request: call('GET', '/campaigns') },
  [`POST ${W}/labels`]: {
    setup: withLabel,
    prepare: (_w, s: Site & { label: string }) => s.visitor.delete(at(s, `/labels/${s.label}`)),
    request: (_w, s: Site & { label: string }) => call('POST', '/labels', { label: s.label }, 204)(_w, s),
  },
  [`DELETE ${W}/labels/{id}`]: {
    setup: withLabel,
    prepare: (_w, s: Site & { label: string }) => s.visitor.post(at(s, '/labels'), { label: s.label }),
    request: (_w, s: Site & { label: string }) => call('DELETE', `/labels/${s.label}`, undefined, 204)(_w, s),
  },
  [`POST ${W}/direct_uploads`]: {
    setup: site,
    request: (_w, s: Site, _p, i) =>
      call('POST', '/direct_uploads', {
        blob: { filename: `f${i}.txt`, byte_size: 10, checksum: 'Ck1VqNd45QIvq3AZd8XYQL==', content_type: 'text/plain' },
      })(_w, s),
  },
  // The browser code: the loader, the chat page (reads the inbox of its token), an asset, the demo page.
  'GET /packs/js/sdk.js': { request: (w) => ({ method: 'GET', path: '/packs/js/sdk.js', client: client(w.baseUrl) }) },
  'GET /widget': {
    setup: site,
    request: (w, s: Site) => ({ method: 'GET', path: `/widget?website_token=${s.websiteToken}`, client: client(w.baseUrl) }),
  },
  'GET /widget/assets/{file}': {
    request: (w) => ({ method: 'GET', path: `/widget/assets/${chatScript.name}`, client: client(w.baseUrl) }),
  },
  'GET /widget/demo': {
    setup: site,
    request: (w, s: Site) => ({ method: 'GET', path: `/widget/demo?website_token=${s.websiteToken}`, client: client(w.baseUrl) }),
  },
};
