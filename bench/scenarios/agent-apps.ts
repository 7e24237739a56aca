import { nextId } from '#shared/db/ids.ts';
import { createNotification } from '#shared/db/repositories/notifications.ts';
import type { NotificationRecord } from '#shared/model/notifications.ts';
import { client, type Client } from '../../test/support/http.ts';
import { fromAddress } from '../../test/e2e/sessions/fixtures.ts';
import type { BenchWorld, Scenarios } from './types.ts';

// Agent apps (sign-in, SSO, profile, macros, notifications): one scenario per route.

const A = '/api/v1/accounts/{account_id}';
const P = '/platform/api/v1';
const PASSWORD = 'Passw0rd!';

const emailOf = async (api: Client) => (await api.get('/api/v1/profile')).body.email as string;

/** A client that sends only a fresh session's headers, as the mobile app does. */
async function session(w: BenchWorld): Promise<Client> {
  const res = await client(w.baseUrl).post('/auth/sign_in', { email: await emailOf(w.account.agent.api), password: PASSWORD });
  if (res.status !== 200) throw new Error(`bench sign-in: ${res.status} ${res.text}`);
  const h = { 'access-token': res.headers.get('access-token')!, client: res.headers.get('client')!, uid: res.headers.get('uid')! };
  const c = client(w.baseUrl);
  return { ...c, request: (m, p, b, extra) => c.request(m, p, b, { ...h, ...(extra ?? {}) }) };
}

const agent = (w: BenchWorld) => w.account.agent.api;

async function macro(w: BenchWorld): Promise<number> {
  const res = await w.account.admin.api.post(`${w.account.base}/macros`, {
    name: w.unique('macro'),
    visibility: 'global',
    actions: [{ action_name: 'change_priority', action_params: ['high'] }],
  });
  if (res.status !== 200) throw new Error(`bench macro: ${res.status} ${res.text}`);
  return res.body.payload.id;
}

/** A notification of the agent, written as the pipeline writes it. */
async function notification(w: BenchWorld): Promise<number> {
  const t = Math.floor(Date.now() / 1000);
  const n: NotificationRecord = {
    id: await nextId('notification'),
    account_id: w.account.id,
    user_id: w.account.agent.id,
    notification_type: 'conversation_assignment',
    primary_actor_type: 'Conversation',
    primary_actor_id: 1,
    primary_actor: { id: 1 },
    secondary_actor: null,
    secondary_actor_type: null,
    secondary_actor_id: null,
    user: { id: w.account.agent.id },
    push_message_title: 'A conversation (#1) has been assigned to you',
    read_at: null,
    snoozed_until: null,
    created_at: t,
    last_activity_at: t,
  };
  await createNotification(n, w.unique('bench-event'));
  return n.id;
}

async function conversation(w: BenchWorld): Promise<number> {
  const api = w.account.admin.api;
  const inbox = (await api.post(`${w.account.base}/inboxes`, { name: w.unique('inbox'), channel: { type: 'api' } })).body.id;
  const contact = (await api.post(`${w.account.base}/contacts`, { name: 'Bench', email: `${w.unique('c')}@bench.example` })).body.payload
    .contact.id;
  return (await api.post(`${w.account.base}/conversations`, { inbox_id: inbox, contact_id: contact })).body.id;
}

const settings = (i: number) => ({
  notification_settings: {
    selected_email_flags: i % 2 ? ['email_conversation_assignment'] : [],
    selected_push_flags: ['push_conversation_assignment'],
  },
});

async function dashboardApp(w: BenchWorld): Promise<number> {
  const res = await w.account.admin.api.post(`${w.account.base}/dashboard_apps`, {
    title: 'Bench',
    content: [{ type: 'frame', url: 'https://crm.example.com' }],
  });
  if (res.status !== 200) throw new Error(`bench dashboard app: ${res.status} ${res.text}`);
  return res.body.id;
}

const frame = (i: number) => ({ title: `App ${i}`, content: [{ type: 'frame', url: `https://crm.example.com/${i}` }] });

/** An ongoing campaign of a new web widget inbox; its display id. */
async function campaign(w: BenchWorld): Promise<number> {
  const api = w.account.admin.api;
  const inbox = (
    await api.post(`${w.account.base}/inboxes`, {
      name: w.unique('site'),
      channel: { type: 'web_widget', website_url: 'https://bench.example.com' },
    })
  ).body.id;
  const res = await api.post(`${w.account.base}/campaigns`, {
    title: 'Bench',
    message: 'Hello!',
    inbox_id: inbox,
    trigger_rules: { url: 'https://bench.example.com/', time_on_page: 3 },
  });
  if (res.status !== 200) throw new Error(`bench campaign: ${res.status} ${res.text}`);
  return res.body.id;
}

const campaignChange = (i: number) => ({ title: `Campaign ${i}`, message: `Hello ${i}`, enabled: i % 2 === 0 });

export const agentApps: Scenarios = {
  [`GET ${A}/campaigns`]: { setup: campaign, request: (w) => ({ method: 'GET', path: `${w.account.base}/campaigns` }) },
  [`POST ${A}/campaigns`]: {
    setup: async (w) =>
      (
        await w.account.admin.api.post(`${w.account.base}/inboxes`, {
          name: w.unique('site'),
          channel: { type: 'web_widget', website_url: 'https://bench.example.com' },
        })
      ).body.id as number,
    request: (w, inbox, _p, i) => ({
      method: 'POST',
      path: `${w.account.base}/campaigns`,
      body: {
        title: `Campaign ${i}`,
        message: 'Hello!',
        inbox_id: inbox,
        trigger_rules: { url: 'https://bench.example.com/', time_on_page: 3 },
      },
    }),
  },
  [`GET ${A}/campaigns/{id}`]: { setup: campaign, request: (w, id) => ({ method: 'GET', path: `${w.account.base}/campaigns/${id}` }) },
  [`PATCH ${A}/campaigns/{id}`]: {
    setup: campaign,
    request: (w, id, _p, i) => ({ method: 'PATCH', path: `${w.account.base}/campaigns/${id}`, body: campaignChange(i) }),
  },
  [`PUT ${A}/campaigns/{id}`]: {
    setup: campaign,
    request: (w, id, _p, i) => ({ method: 'PUT', path: `${w.account.base}/campaigns/${id}`, body: campaignChange(i) }),
  },
  [`DELETE ${A}/campaigns/{id}`]: {
    prepare: campaign,
    request: (w, _s, id) => ({ method: 'DELETE', path: `${w.account.base}/campaigns/${id}` }),
  },

  [`GET ${A}/dashboard_apps`]: {
    setup: dashboardApp,
    request: (w) => ({ method: 'GET', path: `${w.account.base}/dashboard_apps`, client: agent(w) }),
  },
  [`POST ${A}/dashboard_apps`]: {
    request: (w, _s, _p, i) => ({ method: 'POST', path: `${w.account.base}/dashboard_apps`, body: frame(i) }),
  },
  [`GET ${A}/dashboard_apps/{id}`]: {
    setup: dashboardApp,
    request: (w, id) => ({ method: 'GET', path: `${w.account.base}/dashboard_apps/${id}`, client: agent(w) }),
  },
  [`PATCH ${A}/dashboard_apps/{id}`]: {
    setup: dashboardApp,
    request: (w, id, _p, i) => ({ method: 'PATCH', path: `${w.account.base}/dashboard_apps/${id}`, body: frame(i) }),
  },
  [`PUT ${A}/dashboard_apps/{id}`]: {
    setup: dashboardApp,
    request: (w, id, _p, i) => ({ method: 'PUT', path: `${w.account.base}/dashboard_apps/${id}`, body: frame(i) }),
  },
  [`DELETE ${A}/dashboard_apps/{id}`]: {
    prepare: dashboardApp,
    request: (w, _s, id) => ({ method: 'DELETE', path: `${w.account.base}/dashboard_apps/${id}`, status: 204 }),
  },

  'POST /auth/sign_in': {
    setup: (w) => emailOf(agent(w)),
    request: (w, email) => ({ method: 'POST', path: '/auth/sign_in', body: { email, password: PASSWORD }, client: client(w.baseUrl) }),
  },
  'GET /auth/validate_token': { setup: session, request: (_w, app) => ({ method: 'GET', path: '/auth/validate_token', client: app }) },
  'DELETE /auth/sign_out': {
    prepare: session,
    request: (_w, _s, app) => ({ method: 'DELETE', path: '/auth/sign_out', client: app as Client }),
  },
  'POST /auth/password': {
    // Throttled per email and per address (5 each), and the same work whatever the email: each call
    // another email, from another loopback address.
    request: (w, _s, _p, i) => ({
      method: 'POST',
      path: '/auth/password',
      body: { email: `reset-${i}-${Date.now()}@example.com` },
      client: fromAddress(w.baseUrl),
    }),
  },
  'PUT /auth/password': {
    // A reset link as the pipeline would mail it (the user's password stays the same).
    prepare: async (w) => {
      const { putPasswordReset } = await import('#shared/db/repositories/sessions.ts');
      const { hashToken, randomId, resetToken } = await import('#shared/crypto/tokens.ts');
      const userId = w.account.agent.id;
      const token = resetToken(userId);
      const t = Math.floor(Date.now() / 1000);
      await putPasswordReset({
        user_id: userId,
        token_hash: hashToken(token),
        request_id: randomId(),
        requested_at: t,
        expires_at: t + 3600,
        created_at: t,
      });
      return token;
    },
    request: (w, _s, token) => ({
      method: 'PUT',
      path: '/auth/password',
      body: { reset_password_token: token, password: PASSWORD, password_confirmation: PASSWORD },
      client: client(w.baseUrl),
    }),
  },
  [`GET ${P}/users/{id}/login`]: {
    request: (w) => ({ method: 'GET', path: `${P}/users/${w.account.agent.id}/login`, client: w.platform }),
  },

  'PATCH /api/v1/profile': {
    setup: session,
    request: (_w, app, _p, i) => ({
      method: 'PATCH',
      path: '/api/v1/profile',
      body: { profile: { display_name: `Agent ${i}` } },
      client: app,
    }),
  },
  'PUT /api/v1/profile': {
    setup: session,
    request: (_w, app, _p, i) => ({
      method: 'PUT',
      path: '/api/v1/profile',
      body: { profile: { message_signature: `-- ${i}` } },
      client: app,
    }),
  },
  'DELETE /api/v1/profile/avatar': { request: (w) => ({ method: 'DELETE', path: '/api/v1/profile/avatar', client: agent(w) }) },
  'POST /api/v1/profile/availability': {
    request: (w, _s, _p, i) => ({
      method: 'POST',
      path: '/api/v1/profile/availability',
      body: { profile: { availability: i % 2 ? 'busy' : 'online', account_id: w.account.id } },
      client: agent(w),
    }),
  },
  'PUT /api/v1/profile/set_active_account': {
    request: (w) => ({
      method: 'PUT',
      path: '/api/v1/profile/set_active_account',
      body: { profile: { account_id: w.account.id } },
      client: agent(w),
    }),
  },
  'POST /api/v1/notification_subscriptions': {
    request: (w, _s, _p, i) => ({
      method: 'POST',
      path: '/api/v1/notification_subscriptions',
      body: { subscription_type: 'fcm', subscription_attributes: { push_token: `bench-token-${i % 5}`, device_id: 'bench' } },
      client: agent(w),
    }),
  },
  'DELETE /api/v1/notification_subscriptions': {
    prepare: async (w, _s, i) =>
      agent(w).post('/api/v1/notification_subscriptions', {
        subscription_type: 'fcm',
        subscription_attributes: { push_token: `gone-${i}` },
      }),
    request: (w, _s, _p, i) => ({
      method: 'DELETE',
      path: '/api/v1/notification_subscriptions',
      body: { push_token: `gone-${i}` },
      client: agent(w),
    }),
  },

  [`GET ${A}/macros`]: { setup: macro, request: (w) => ({ method: 'GET', path: `${w.account.base}/macros`, client: agent(w) }) },
  [`POST ${A}/macros`]: {
    request: (w) => ({
      method: 'POST',
      path: `${w.account.base}/macros`,
      body: { name: 'Bench', actions: [{ action_name: 'resolve_conversation' }] },
    }),
  },
  [`GET ${A}/macros/{id}`]: { setup: macro, request: (w, id) => ({ method: 'GET', path: `${w.account.base}/macros/${id}` }) },
  [`PATCH ${A}/macros/{id}`]: {
    setup: macro,
    request: (w, id, _p, i) => ({ method: 'PATCH', path: `${w.account.base}/macros/${id}`, body: { name: `Macro ${i}` } }),
  },
  [`PUT ${A}/macros/{id}`]: {
    setup: macro,
    request: (w, id, _p, i) => ({ method: 'PUT', path: `${w.account.base}/macros/${id}`, body: { name: `Macro ${i}` } }),
  },
  [`DELETE ${A}/macros/{id}`]: { prepare: macro, request: (w, _s, id) => ({ method: 'DELETE', path: `${w.account.base}/macros/${id}` }) },
  [`POST ${A}/macros/{id}/execute`]: {
    setup: async (w) => ({ id: await macro(w), conversation: await conversation(w) }),
    request: (w, s: { id: number; conversation: number }) => ({
      method: 'POST',
      path: `${w.account.base}/macros/${s.id}/execute`,
      body: { conversation_ids: [s.conversation] },
    }),
  },

  [`GET ${A}/conversations/{conversation_id}/attachments`]: {
    setup: async (w) => {
      const id = await conversation(w);
      for (let i = 0; i < 3; i++) {
        const f = new FormData();
        f.append('attachments[]', new Blob([Buffer.from(`file ${i}`)], { type: 'text/plain' }), `f${i}.txt`);
        await w.account.admin.api.post(`${w.account.base}/conversations/${id}/messages`, f);
      }
      return id;
    },
    request: (w, id) => ({ method: 'GET', path: `${w.account.base}/conversations/${id}/attachments` }),
  },
  [`GET ${A}/notifications`]: {
    setup: async (w) => {
      for (let i = 0; i < 15; i++) await notification(w);
    },
    request: (w) => ({
      method: 'GET',
      path: `${w.account.base}/notifications?sort_order=desc&includes[]=snoozed&includes[]=read&page=1`,
      client: agent(w),
    }),
  },
  [`GET ${A}/notifications/unread_count`]: {
    request: (w) => ({ method: 'GET', path: `${w.account.base}/notifications/unread_count`, client: agent(w) }),
  },
  [`POST ${A}/notifications/read_all`]: {
    prepare: notification,
    request: (w) => ({ method: 'POST', path: `${w.account.base}/notifications/read_all`, client: agent(w) }),
  },
  [`PATCH ${A}/notifications/{id}`]: {
    prepare: notification,
    request: (w, _s, id) => ({ method: 'PATCH', path: `${w.account.base}/notifications/${id}`, client: agent(w) }),
  },
  [`PUT ${A}/notifications/{id}`]: {
    prepare: notification,
    request: (w, _s, id) => ({ method: 'PUT', path: `${w.account.base}/notifications/${id}`, client: agent(w) }),
  },
  [`DELETE ${A}/notifications/{id}`]: {
    prepare: notification,
    request: (w, _s, id) => ({ method: 'DELETE', path: `${w.account.base}/notifications/${id}`, client: agent(w) }),
  },
  [`POST ${A}/notifications/{id}/unread`]: {
    prepare: async (w) => {
      const id = await notification(w);
      await agent(w).patch(`${w.account.base}/notifications/${id}`);
      return id;
    },
    request: (w, _s, id) => ({ method: 'POST', path: `${w.account.base}/notifications/${id}/unread`, client: agent(w) }),
  },
  [`POST ${A}/notifications/{id}/snooze`]: {
    prepare: notification,
    request: (w, _s, id) => ({
      method: 'POST',
      path: `${w.account.base}/notifications/${id}/snooze`,
      body: { snoozed_until: Math.floor(Date.now() / 1000) + 3600 },
      client: agent(w),
    }),
  },
  [`GET ${A}/notification_settings`]: {
    request: (w) => ({ method: 'GET', path: `${w.account.base}/notification_settings`, client: agent(w) }),
  },
  [`PATCH ${A}/notification_settings`]: {
    request: (w, _s, _p, i) => ({ method: 'PATCH', path: `${w.account.base}/notification_settings`, body: settings(i), client: agent(w) }),
  },
  [`PUT ${A}/notification_settings`]: {
    request: (w, _s, _p, i) => ({ method: 'PUT', path: `${w.account.base}/notification_settings`, body: settings(i), client: agent(w) }),
  },
  // Captain's tasks: the bench account has no OpenAI integration, so each answers 422 after reading the
  // account's hooks (the model is never called from the bench; test/e2e/captain calls a fake on loopback).
  ...Object.fromEntries(
    (['rewrite', 'summarize', 'reply_suggestion', 'label_suggestion', 'follow_up'] as const).map((task) => [
      `POST ${A}/captain/tasks/${task}`,
      {
        request: (w: BenchWorld) => ({
          method: 'POST',
          path: `${w.account.base}/captain/tasks/${task}`,
          body: captainBody(task),
          client: agent(w),
          status: 422,
        }),
      },
    ]),
  ),
};

function captainBody(task: string): Record<string, unknown> {
  if (task === 'rewrite') return { content: 'hi, we will send it tomorow', operation: 'professional', conversation_display_id: 1 };
  if (task === 'follow_up') {
    return {
      message: 'Shorter, please',
      conversation_display_id: 1,
      follow_up_context: {
        event_name: 'summarize',
        original_context: 'Customer: Where is my order?',
        last_response: 'The customer asks where the order is.',
      },
    };
  }
  return { conversation_display_id: 1 };
}
