import type { BenchWorld, Scenarios } from './types.ts';

// Account interface I: inboxes, inbox members, teams, agents, contacts, conversations, messages and
// counts, one scenario per route, called by the account administrator.

const A = '/api/v1/accounts/{account_id}';

const ok = async (w: BenchWorld, method: string, path: string, body?: unknown): Promise<any> => {
  const res = await w.account.admin.api.request(method, `${w.account.base}${path}`, body);
  if (res.status !== 200) throw new Error(`bench setup ${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.body;
};

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

const inbox = async (w: BenchWorld): Promise<number> =>
  (await ok(w, 'POST', '/inboxes', { name: w.unique('inbox'), channel: { type: 'api' } })).id;
const team = async (w: BenchWorld): Promise<number> => (await ok(w, 'POST', '/teams', { name: w.unique('team') })).id;
const contact = async (w: BenchWorld, fields: Record<string, unknown> = {}): Promise<number> =>
  (await ok(w, 'POST', '/contacts', { name: 'Bench Contact', email: `${w.unique('contact')}@bench.example`, ...fields })).payload.contact
    .id;
const members = (w: BenchWorld, inboxId: number, userIds: number[]) =>
  ok(w, 'POST', '/inbox_members', { inbox_id: inboxId, user_ids: userIds });

interface Conv {
  inbox: number;
  contact: number;
  id: number;
}

/** An API inbox (the agent a member), a contact and a conversation with `messages` messages. */
async function conversation(w: BenchWorld, messages = 1): Promise<Conv> {
  const [i, c] = await Promise.all([inbox(w), contact(w)]);
  await members(w, i, [w.account.agent.id]);
  const id = (await ok(w, 'POST', '/conversations', { inbox_id: i, contact_id: c })).id;
  for (let k = 0; k < messages; k++) {
    await ok(
      w,
      'POST',
      `/conversations/${id}/messages`,
      k % 2 ? { content: `Reply ${k}` } : { content: `Question ${k} about my order`, message_type: 'incoming' },
    );
  }
  return { inbox: i, contact: c, id };
}

const message = async (w: BenchWorld, conv: number): Promise<number> =>
  (await ok(w, 'POST', `/conversations/${conv}/messages`, { content: 'Bench message' })).id;

const avatarForm = () => {
  const f = new FormData();
  f.append('avatar', new Blob([PNG], { type: 'image/png' }), 'avatar.png');
  return f;
};

const inboxes: Scenarios = {
  // An uploaded avatar's signed link: its MAC and expiry checked, the object's existence (one HEAD), then
  // 302 to a short-lived presigned storage URL.
  'GET /rails/active_storage/blobs/redirect/{signed_id}/{filename}': {
    setup: async (w) => {
      const id = await inbox(w);
      const url = new URL((await ok(w, 'PATCH', `/inboxes/${id}`, avatarForm())).avatar_url);
      return url.pathname;
    },
    request: (_w, path) => ({ method: 'GET', path, status: 302 }),
  },
  [`GET ${A}/inboxes`]: { setup: inbox, request: (w) => ({ method: 'GET', path: `${w.account.base}/inboxes` }) },
  [`POST ${A}/inboxes`]: {
    request: (w) => ({
      method: 'POST',
      path: `${w.account.base}/inboxes`,
      body: { name: w.unique('inbox'), channel: { type: 'api', webhook_url: 'https://example.com/hook' } },
    }),
  },
  [`GET ${A}/inboxes/{id}`]: { setup: inbox, request: (w, id) => ({ method: 'GET', path: `${w.account.base}/inboxes/${id}` }) },
  [`PATCH ${A}/inboxes/{id}`]: {
    setup: inbox,
    request: (w, id, _p, i) => ({
      method: 'PATCH',
      path: `${w.account.base}/inboxes/${id}`,
      body: { name: `Inbox ${i}`, greeting_enabled: i % 2 === 0 },
    }),
  },
  [`PUT ${A}/inboxes/{id}`]: {
    setup: inbox,
    request: (w, id, _p, i) => ({
      method: 'PUT',
      path: `${w.account.base}/inboxes/${id}`,
      body: { name: `Inbox ${i}`, greeting_enabled: i % 2 === 0 },
    }),
  },
  [`DELETE ${A}/inboxes/{id}`]: {
    prepare: async (w) => {
      const id = await inbox(w);
      await members(w, id, [w.account.agent.id]);
      return id;
    },
    request: (w, _s, id) => ({ method: 'DELETE', path: `${w.account.base}/inboxes/${id}` }),
  },
  [`DELETE ${A}/inboxes/{id}/avatar`]: {
    setup: inbox,
    prepare: (w, id) => ok(w, 'PATCH', `/inboxes/${id}`, avatarForm()),
    request: (w, id) => ({ method: 'DELETE', path: `${w.account.base}/inboxes/${id}/avatar` }),
  },
  [`GET ${A}/inboxes/{id}/agent_bot`]: {
    setup: async (w) => {
      const id = await inbox(w);
      const bot = (await ok(w, 'POST', '/agent_bots', { name: 'Bench bot' })).id;
      await ok(w, 'POST', `/inboxes/${id}/set_agent_bot`, { agent_bot: bot });
      return id;
    },
    request: (w, id) => ({ method: 'GET', path: `${w.account.base}/inboxes/${id}/agent_bot` }),
  },
  [`POST ${A}/inboxes/{id}/set_agent_bot`]: {
    setup: async (w) => ({ inbox: await inbox(w), bot: (await ok(w, 'POST', '/agent_bots', { name: 'Bench bot' })).id as number }),
    request: (w, s, _p, i) => ({
      method: 'POST',
      path: `${w.account.base}/inboxes/${s.inbox}/set_agent_bot`,
      body: { agent_bot: i % 2 ? null : s.bot },
    }),
  },

  [`POST ${A}/inbox_members`]: {
    setup: inbox,
    prepare: (w, id) => ok(w, 'DELETE', '/inbox_members', { inbox_id: id, user_ids: [w.account.agent.id] }),
    request: (w, id) => ({
      method: 'POST',
      path: `${w.account.base}/inbox_members`,
      body: { inbox_id: id, user_ids: [w.account.agent.id] },
    }),
  },
  [`PATCH ${A}/inbox_members`]: {
    setup: inbox,
    request: (w, id, _p, i) => ({
      method: 'PATCH',
      path: `${w.account.base}/inbox_members`,
      body: { inbox_id: id, user_ids: i % 2 ? [w.account.agent.id] : [w.account.agent.id, w.account.admin.id] },
    }),
  },
  [`PUT ${A}/inbox_members`]: {
    setup: inbox,
    request: (w, id, _p, i) => ({
      method: 'PUT',
      path: `${w.account.base}/inbox_members`,
      body: { inbox_id: id, user_ids: i % 2 ? [w.account.agent.id] : [w.account.agent.id, w.account.admin.id] },
    }),
  },
  [`DELETE ${A}/inbox_members`]: {
    setup: inbox,
    prepare: (w, id) => members(w, id, [w.account.agent.id]),
    request: (w, id) => ({
      method: 'DELETE',
      path: `${w.account.base}/inbox_members`,
      body: { inbox_id: id, user_ids: [w.account.agent.id] },
    }),
  },
  [`GET ${A}/inbox_members/{inbox_id}`]: {
    setup: async (w) => {
      const id = await inbox(w);
      await members(w, id, [w.account.agent.id, w.account.admin.id]);
      return id;
    },
    request: (w, id) => ({ method: 'GET', path: `${w.account.base}/inbox_members/${id}` }),
  },
};

const teams: Scenarios = {
  [`GET ${A}/teams`]: { setup: team, request: (w) => ({ method: 'GET', path: `${w.account.base}/teams` }) },
  [`POST ${A}/teams`]: {
    request: (w) => ({ method: 'POST', path: `${w.account.base}/teams`, body: { name: w.unique('team'), description: 'Bench' } }),
  },
  [`GET ${A}/teams/{id}`]: { setup: team, request: (w, id) => ({ method: 'GET', path: `${w.account.base}/teams/${id}` }) },
  [`PATCH ${A}/teams/{id}`]: {
    setup: team,
    request: (w, id, _p, i) => ({ method: 'PATCH', path: `${w.account.base}/teams/${id}`, body: { description: `v${i}` } }),
  },
  [`PUT ${A}/teams/{id}`]: {
    setup: team,
    request: (w, id, _p, i) => ({ method: 'PUT', path: `${w.account.base}/teams/${id}`, body: { description: `v${i}` } }),
  },
  [`DELETE ${A}/teams/{id}`]: {
    prepare: async (w) => {
      const id = await team(w);
      await ok(w, 'POST', `/teams/${id}/team_members`, { user_ids: [w.account.agent.id] });
      return id;
    },
    request: (w, _s, id) => ({ method: 'DELETE', path: `${w.account.base}/teams/${id}` }),
  },
  [`GET ${A}/teams/{team_id}/team_members`]: {
    setup: async (w) => {
      const id = await team(w);
      await ok(w, 'POST', `/teams/${id}/team_members`, { user_ids: [w.account.agent.id, w.account.admin.id] });
      return id;
    },
    request: (w, id) => ({ method: 'GET', path: `${w.account.base}/teams/${id}/team_members` }),
  },
  [`POST ${A}/teams/{team_id}/team_members`]: {
    setup: team,
    prepare: (w, id) => ok(w, 'DELETE', `/teams/${id}/team_members`, { user_ids: [w.account.agent.id] }),
    request: (w, id) => ({ method: 'POST', path: `${w.account.base}/teams/${id}/team_members`, body: { user_ids: [w.account.agent.id] } }),
  },
  [`PATCH ${A}/teams/{team_id}/team_members`]: {
    setup: team,
    request: (w, id, _p, i) => ({
      method: 'PATCH',
      path: `${w.account.base}/teams/${id}/team_members`,
      body: { user_ids: i % 2 ? [w.account.agent.id] : [w.account.agent.id, w.account.admin.id] },
    }),
  },
  [`PUT ${A}/teams/{team_id}/team_members`]: {
    setup: team,
    request: (w, id, _p, i) => ({
      method: 'PUT',
      path: `${w.account.base}/teams/${id}/team_members`,
      body: { user_ids: i % 2 ? [w.account.agent.id] : [w.account.agent.id, w.account.admin.id] },
    }),
  },
  [`DELETE ${A}/teams/{team_id}/team_members`]: {
    setup: team,
    prepare: (w, id) => ok(w, 'POST', `/teams/${id}/team_members`, { user_ids: [w.account.agent.id] }),
    request: (w, id) => ({
      method: 'DELETE',
      path: `${w.account.base}/teams/${id}/team_members`,
      body: { user_ids: [w.account.agent.id] },
    }),
  },

  [`GET ${A}/agents`]: { request: (w) => ({ method: 'GET', path: `${w.account.base}/agents` }) },
};

const contacts: Scenarios = {
  [`GET ${A}/contacts`]: {
    setup: async (w) => {
      for (let i = 0; i < 5; i++) await contact(w);
    },
    request: (w) => ({ method: 'GET', path: `${w.account.base}/contacts` }),
  },
  [`GET ${A}/contacts/search`]: {
    setup: async (w) => {
      const name = w.unique('Findable').replace(/[^\w]/g, '');
      await contact(w, { name });
      return name;
    },
    request: (w, name) => ({ method: 'GET', path: `${w.account.base}/contacts/search?q=${encodeURIComponent(name)}` }),
  },
  [`POST ${A}/contacts`]: {
    request: (w) => ({
      method: 'POST',
      path: `${w.account.base}/contacts`,
      body: { name: 'New Contact', email: `${w.unique('new')}@bench.example`, custom_attributes: { plan: 'gold' } },
    }),
  },
  [`GET ${A}/contacts/{id}`]: {
    setup: (w) => contact(w),
    request: (w, id) => ({ method: 'GET', path: `${w.account.base}/contacts/${id}` }),
  },
  [`PATCH ${A}/contacts/{id}`]: {
    setup: (w) => contact(w),
    request: (w, id, _p, i) => ({
      method: 'PATCH',
      path: `${w.account.base}/contacts/${id}`,
      body: { name: `Contact ${i}`, custom_attributes: { i } },
    }),
  },
  [`PUT ${A}/contacts/{id}`]: {
    setup: (w) => contact(w),
    request: (w, id, _p, i) => ({
      method: 'PUT',
      path: `${w.account.base}/contacts/${id}`,
      body: { name: `Contact ${i}`, custom_attributes: { i } },
    }),
  },
  [`DELETE ${A}/contacts/{id}`]: {
    prepare: async (w) => {
      const id = await contact(w, { identifier: w.unique('gone') });
      await ok(w, 'POST', `/contacts/${id}/labels`, { labels: ['gone'] });
      return id;
    },
    request: (w, _s, id) => ({ method: 'DELETE', path: `${w.account.base}/contacts/${id}` }),
  },
  [`POST ${A}/contacts/{id}/destroy_custom_attributes`]: {
    setup: (w) => contact(w),
    prepare: (w, id) => ok(w, 'PATCH', `/contacts/${id}`, { custom_attributes: { plan: 'gold', seats: 3 } }),
    request: (w, id) => ({
      method: 'POST',
      path: `${w.account.base}/contacts/${id}/destroy_custom_attributes`,
      body: { custom_attributes: ['plan'] },
    }),
  },
  [`DELETE ${A}/contacts/{id}/avatar`]: {
    setup: (w) => contact(w),
    prepare: (w, id) => ok(w, 'PATCH', `/contacts/${id}`, avatarForm()),
    request: (w, id) => ({ method: 'DELETE', path: `${w.account.base}/contacts/${id}/avatar` }),
  },
  [`GET ${A}/contacts/{id}/labels`]: {
    setup: async (w) => {
      const id = await contact(w);
      await ok(w, 'POST', `/contacts/${id}/labels`, { labels: ['vip', 'billing'] });
      return id;
    },
    request: (w, id) => ({ method: 'GET', path: `${w.account.base}/contacts/${id}/labels` }),
  },
  [`POST ${A}/contacts/{id}/labels`]: {
    setup: (w) => contact(w),
    request: (w, id, _p, i) => ({
      method: 'POST',
      path: `${w.account.base}/contacts/${id}/labels`,
      body: { labels: i % 2 ? ['vip'] : ['vip', 'billing'] },
    }),
  },
  [`POST ${A}/contacts/{id}/contact_inboxes`]: {
    setup: inbox,
    prepare: (w) => contact(w),
    request: (w, inboxId, contactId) => ({
      method: 'POST',
      path: `${w.account.base}/contacts/${contactId}/contact_inboxes`,
      body: { inbox_id: inboxId },
    }),
  },
  [`GET ${A}/contacts/{id}/contactable_inboxes`]: {
    setup: async (w) => {
      const [i, c] = await Promise.all([inbox(w), contact(w)]);
      await ok(w, 'POST', `/contacts/${c}/contact_inboxes`, { inbox_id: i });
      return c;
    },
    request: (w, id) => ({ method: 'GET', path: `${w.account.base}/contacts/${id}/contactable_inboxes` }),
  },
};

const conv = (w: BenchWorld, id: number, rest = '') => `${w.account.base}/conversations/${id}${rest}`;

const conversations: Scenarios = {
  [`GET ${A}/conversations`]: {
    setup: (w) => conversation(w, 2),
    request: (w) => ({ method: 'GET', path: `${w.account.base}/conversations` }),
  },
  [`POST ${A}/conversations`]: {
    // Even calls: on the existing contact inbox of a source id; odd calls: a new contact inbox. Both with a first message.
    setup: async (w) => {
      const s = await conversation(w, 0);
      const sourceId = w.unique('src');
      await ok(w, 'POST', '/conversations', { inbox_id: s.inbox, contact_id: s.contact, source_id: sourceId });
      return { ...s, sourceId };
    },
    request: (w, s: Conv & { sourceId: string }, _p, i) => ({
      method: 'POST',
      path: `${w.account.base}/conversations`,
      body: {
        ...(i % 2 ? { inbox_id: s.inbox, contact_id: s.contact } : { inbox_id: s.inbox, source_id: s.sourceId }),
        message: { content: 'Hello from the bench' },
      },
    }),
  },
  [`GET ${A}/conversations/meta`]: {
    setup: (w) => conversation(w, 0),
    request: (w) => ({ method: 'GET', path: `${w.account.base}/conversations/meta` }),
  },
  [`GET ${A}/conversations/search`]: {
    setup: async (w) => {
      const s = await conversation(w, 0);
      const term = w.unique('needle').replace(/[^\w]/g, '');
      await ok(w, 'POST', `/conversations/${s.id}/messages`, { content: `Looking for ${term}`, message_type: 'incoming' });
      return term;
    },
    request: (w, term) => ({ method: 'GET', path: `${w.account.base}/conversations/search?q=${term}` }),
  },
  [`GET ${A}/conversations/{conversation_id}`]: {
    setup: (w) => conversation(w),
    request: (w, s: Conv) => ({ method: 'GET', path: conv(w, s.id) }),
  },
  [`PATCH ${A}/conversations/{conversation_id}`]: {
    setup: (w) => conversation(w),
    request: (w, s: Conv, _p, i) => ({
      method: 'PATCH',
      path: conv(w, s.id),
      body: { priority: ['low', 'medium', 'high', 'urgent'][i % 4] },
    }),
  },
  [`PUT ${A}/conversations/{conversation_id}`]: {
    setup: (w) => conversation(w),
    request: (w, s: Conv, _p, i) => ({
      method: 'PUT',
      path: conv(w, s.id),
      body: { priority: ['low', 'medium', 'high', 'urgent'][i % 4] },
    }),
  },
  [`DELETE ${A}/conversations/{conversation_id}`]: {
    setup: (w) => conversation(w, 0),
    prepare: async (w, s: Conv) => {
      const id = (await ok(w, 'POST', '/conversations', { inbox_id: s.inbox, contact_id: s.contact, message: { content: 'Soon gone' } }))
        .id;
      await ok(w, 'POST', `/conversations/${id}/labels`, { labels: ['gone'] });
      return id;
    },
    request: (w, _s, id) => ({ method: 'DELETE', path: conv(w, id as number) }),
  },
  [`POST ${A}/conversations/{conversation_id}/toggle_status`]: {
    setup: (w) => conversation(w),
    request: (w, s: Conv, _p, i) => ({
      method: 'POST',
      path: conv(w, s.id, '/toggle_status'),
      body: { status: i % 2 ? 'open' : 'resolved' },
    }),
  },
  [`POST ${A}/conversations/{conversation_id}/toggle_priority`]: {
    setup: (w) => conversation(w),
    request: (w, s: Conv, _p, i) => ({
      method: 'POST',
      path: conv(w, s.id, '/toggle_priority'),
      body: { priority: i % 2 ? 'high' : 'low' },
    }),
  },
  [`POST ${A}/conversations/{conversation_id}/custom_attributes`]: {
    setup: (w) => conversation(w),
    request: (w, s: Conv, _p, i) => ({
      method: 'POST',
      path: conv(w, s.id, '/custom_attributes'),
      body: { custom_attributes: { order: i, plan: 'gold' } },
    }),
  },
  [`POST ${A}/conversations/{conversation_id}/toggle_typing_status`]: {
    setup: (w) => conversation(w),
    request: (w, s: Conv, _p, i) => ({
      method: 'POST',
      path: conv(w, s.id, '/toggle_typing_status'),
      body: { typing_status: i % 2 ? 'off' : 'on' },
    }),
  },
  [`POST ${A}/conversations/{conversation_id}/update_last_seen`]: {
    setup: (w) => conversation(w),
    request: (w, s: Conv) => ({ method: 'POST', path: conv(w, s.id, '/update_last_seen') }),
  },
  [`POST ${A}/conversations/{conversation_id}/assignments`]: {
    setup: (w) => conversation(w),
    request: (w, s: Conv, _p, i) => ({
      method: 'POST',
      path: conv(w, s.id, '/assignments'),
      body: { assignee_id: i % 2 ? w.account.agent.id : w.account.admin.id },
    }),
  },
  [`GET ${A}/conversations/{conversation_id}/labels`]: {
    setup: async (w) => {
      const s = await conversation(w);
      await ok(w, 'POST', `/conversations/${s.id}/labels`, { labels: ['vip', 'billing'] });
      return s;
    },
    request: (w, s: Conv) => ({ method: 'GET', path: conv(w, s.id, '/labels') }),
  },
  [`POST ${A}/conversations/{conversation_id}/labels`]: {
    setup: (w) => conversation(w),
    request: (w, s: Conv, _p, i) => ({
      method: 'POST',
      path: conv(w, s.id, '/labels'),
      body: { labels: i % 2 ? ['vip'] : ['vip', 'billing'] },
    }),
  },
  [`GET ${A}/conversations/{conversation_id}/messages`]: {
    setup: (w) => conversation(w, 25),
    request: (w, s: Conv) => ({ method: 'GET', path: conv(w, s.id, '/messages') }),
  },
  [`POST ${A}/conversations/{conversation_id}/direct_uploads`]: {
    setup: (w) => conversation(w),
    request: (w, s: Conv, _p, i) => ({
      method: 'POST',
      path: conv(w, s.id, '/direct_uploads'),
      body: {
        blob: { filename: `scan-${i}.pdf`, byte_size: 2_000_000, checksum: 'XrY7u+Ae7tCTyyK7j1rNww==', content_type: 'application/pdf' },
      },
    }),
  },
  [`POST ${A}/conversations/{conversation_id}/messages/{message_id}/translate`]: {
    // No google_translate hook in the bench account: the call reads the message and the account's hooks
    // and answers {content: null} (Google is never called from the bench).
    setup: async (w) => {
      const s = await conversation(w);
      const m = await ok(w, 'POST', `/conversations/${s.id}/messages`, { content: 'Hello, where is my order?' });
      return { ...s, message: m.id };
    },
    request: (w, s: Conv & { message: number }) => ({
      method: 'POST',
      path: conv(w, s.id, `/messages/${s.message}/translate`),
      body: { target_language: 'pt_BR' },
    }),
  },
  [`POST ${A}/conversations/{conversation_id}/messages`]: {
    // A conversation per call, each last active more than a second before: a message in the same second
    // as the previous activity would hide the cost of moving the conversation in the activity index.
    setup: async (w) => {
      const s = await conversation(w);
      const ids = [];
      for (let k = 0; k < Number(process.env.BENCH_ITERATIONS ?? 30) + 3; k++) {
        ids.push((await ok(w, 'POST', '/conversations', { inbox_id: s.inbox, contact_id: s.contact, message: { content: 'Hello' } })).id);
      }
      await new Promise((r) => setTimeout(r, 1100));
      return ids;
    },
    request: (w, ids: number[], _p, i) => ({
      method: 'POST',
      path: conv(w, ids[i % ids.length], '/messages'),
      body: i % 2 ? { content: `Reply ${i}` } : { content: `Question ${i}`, message_type: 'incoming' },
    }),
  },
  [`PATCH ${A}/conversations/{conversation_id}/messages/{message_id}`]: {
    setup: (w) => conversation(w),
    prepare: async (w, s: Conv) => message(w, s.id),
    request: (w, s: Conv, m) => ({ method: 'PATCH', path: conv(w, s.id, `/messages/${m}`), body: { status: 'delivered' } }),
  },
  [`PUT ${A}/conversations/{conversation_id}/messages/{message_id}`]: {
    setup: (w) => conversation(w),
    prepare: async (w, s: Conv) => message(w, s.id),
    request: (w, s: Conv, m) => ({ method: 'PUT', path: conv(w, s.id, `/messages/${m}`), body: { status: 'read' } }),
  },
  [`DELETE ${A}/conversations/{conversation_id}/messages/{message_id}`]: {
    setup: (w) => conversation(w),
    prepare: async (w, s: Conv) => message(w, s.id),
    request: (w, s: Conv, m) => ({ method: 'DELETE', path: conv(w, s.id, `/messages/${m}`) }),
  },
  [`GET ${A}/contacts/{id}/conversations`]: {
    setup: async (w) => {
      const s = await conversation(w);
      for (let k = 0; k < 2; k++) await ok(w, 'POST', '/conversations', { inbox_id: s.inbox, contact_id: s.contact });
      return s;
    },
    request: (w, s: Conv) => ({ method: 'GET', path: `${w.account.base}/contacts/${s.contact}/conversations` }),
  },
};

export const accountInterface1: Scenarios = { ...inboxes, ...teams, ...contacts, ...conversations };
