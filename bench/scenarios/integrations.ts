import type { BenchWorld, Scenarios } from './types.ts';

// Routes that EvolutionAPI and the n8n Chatwoot nodes call: one scenario per route.

const A = '/api/v1/accounts/{account_id}';
const post = async (w: BenchWorld, path: string, body: unknown): Promise<number> => {
  const res = await w.account.admin.api.post(`${w.account.base}${path}`, body);
  if (res.status !== 200) throw new Error(`bench setup ${path}: ${res.status} ${res.text}`);
  return res.body.id as number;
};
const key = (w: BenchWorld, prefix: string) => w.unique(prefix).replace(/[^\w]/g, '_');

const definition = (w: BenchWorld) =>
  post(w, '/custom_attribute_definitions', {
    attribute_display_name: 'Plan',
    attribute_key: key(w, 'plan'),
    attribute_model: 'contact_attribute',
  });
const agent = (w: BenchWorld) => post(w, '/agents', { name: 'Bench agent', email: `${key(w, 'agent')}@example.com`, role: 'agent' });
const inbox = (w: BenchWorld) => post(w, '/inboxes', { name: 'Bench inbox', channel: { type: 'api' } });
const C = `${A}/conversations/{conversation_id}`;
/** A conversation in a fresh API inbox, with one incoming message. */
const conversation = async (w: BenchWorld): Promise<number> => {
  const [inboxId, contact] = await Promise.all([
    inbox(w),
    w.account.admin.api.post(`${w.account.base}/contacts`, { name: 'Bench contact', email: `${key(w, 'c')}@example.com` }),
  ]);
  const id = await post(w, '/conversations', { inbox_id: inboxId, contact_id: contact.body.payload.contact.id });
  await w.account.admin.api.post(`${w.account.base}/conversations/${id}/messages`, { content: 'hello', message_type: 'incoming' });
  return id;
};
const conv = (w: BenchWorld, id: unknown, tail: string) => `${w.account.base}/conversations/${id}${tail}`;
const hook = async (w: BenchWorld) =>
  post(w, '/integrations/hooks', { app_id: 'dialogflow', inbox_id: await inbox(w), settings: { project_id: 'bench', credentials: {} } });
const canned = (w: BenchWorld) => post(w, '/canned_responses', { short_code: key(w, 'greet'), content: 'Hello! How can we help?' });

/** A listed contact with a phone number (EvolutionAPI's WhatsApp contacts), answering its id. */
const phoneContact = async (w: BenchWorld, phone: string): Promise<number> =>
  (await w.account.admin.api.post(`${w.account.base}/contacts`, { name: 'Bench phone', phone_number: `+${phone}` })).body.payload.contact
    .id;
const benchPhone = () => `55119${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;

export const integrations: Scenarios = {
  'GET /api': { request: () => ({ method: 'GET', path: '/api' }) },

  // EvolutionAPI's findContact: the phone with and without the Brazilian ninth digit, OR'ed, without `+`.
  [`POST ${A}/contacts/filter`]: {
    setup: async (w) => {
      const phone = benchPhone();
      await phoneContact(w, phone);
      return phone;
    },
    request: (w, phone: string) => ({
      method: 'POST',
      path: `${w.account.base}/contacts/filter`,
      body: {
        payload: [
          { attribute_key: 'phone_number', filter_operator: 'equal_to', values: [phone], query_operator: 'OR' },
          {
            attribute_key: 'phone_number',
            filter_operator: 'equal_to',
            values: [phone.slice(0, 4) + phone.slice(5)],
            query_operator: null,
          },
        ],
      },
    }),
  },
  // The n8n node's conversation filter example.
  [`POST ${A}/conversations/filter`]: {
    setup: (w) => conversation(w),
    request: (w) => ({
      method: 'POST',
      path: `${w.account.base}/conversations/filter`,
      body: { payload: [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'] }] },
    }),
  },
  // EvolutionAPI's mergeBrazilianContacts: a fresh pair each call, the mergee with a conversation.
  [`POST ${A}/actions/contact_merge`]: {
    prepare: async (w) => {
      const phone = benchPhone();
      const [base, mergee, inboxId] = await Promise.all([
        phoneContact(w, phone),
        phoneContact(w, phone.slice(0, 4) + phone.slice(5)),
        inbox(w),
      ]);
      await post(w, '/conversations', { inbox_id: inboxId, contact_id: mergee });
      return { base, mergee };
    },
    request: (w, _s, prepared) => {
      const p = prepared as { base: number; mergee: number };
      return {
        method: 'POST',
        path: `${w.account.base}/actions/contact_merge`,
        body: { base_contact_id: p.base, mergee_contact_id: p.mergee },
      };
    },
  },

  [`GET ${A}/custom_attribute_definitions`]: {
    setup: definition,
    request: (w) => ({ method: 'GET', path: `${w.account.base}/custom_attribute_definitions?attribute_model=contact_attribute` }),
  },
  [`POST ${A}/custom_attribute_definitions`]: {
    request: (w) => ({
      method: 'POST',
      path: `${w.account.base}/custom_attribute_definitions`,
      body: {
        attribute_display_name: 'Tier',
        attribute_key: key(w, 'tier'),
        attribute_model: 'contact_attribute',
        attribute_display_type: 'list',
        attribute_values: ['a', 'b'],
      },
    }),
  },
  [`GET ${A}/custom_attribute_definitions/{id}`]: {
    setup: definition,
    request: (w, id) => ({ method: 'GET', path: `${w.account.base}/custom_attribute_definitions/${id}` }),
  },
  [`PATCH ${A}/custom_attribute_definitions/{id}`]: {
    setup: definition,
    request: (w, id, _p, i) => ({
      method: 'PATCH',
      path: `${w.account.base}/custom_attribute_definitions/${id}`,
      body: { attribute_display_name: `Plan ${i}` },
    }),
  },
  [`PUT ${A}/custom_attribute_definitions/{id}`]: {
    setup: definition,
    request: (w, id, _p, i) => ({
      method: 'PUT',
      path: `${w.account.base}/custom_attribute_definitions/${id}`,
      body: { attribute_description: `d${i}` },
    }),
  },
  [`DELETE ${A}/custom_attribute_definitions/{id}`]: {
    prepare: definition,
    request: (w, _s, id) => ({ method: 'DELETE', path: `${w.account.base}/custom_attribute_definitions/${id}`, status: 204 }),
  },

  [`GET ${A}/canned_responses`]: {
    setup: canned,
    request: (w) => ({ method: 'GET', path: `${w.account.base}/canned_responses?search=greet` }),
  },
  [`POST ${A}/canned_responses`]: {
    request: (w) => ({
      method: 'POST',
      path: `${w.account.base}/canned_responses`,
      body: { short_code: key(w, 'bye'), content: 'Goodbye' },
    }),
  },
  [`PATCH ${A}/canned_responses/{id}`]: {
    setup: canned,
    request: (w, id, _p, i) => ({ method: 'PATCH', path: `${w.account.base}/canned_responses/${id}`, body: { content: `Hello ${i}` } }),
  },
  [`PUT ${A}/canned_responses/{id}`]: {
    setup: canned,
    request: (w, id, _p, i) => ({ method: 'PUT', path: `${w.account.base}/canned_responses/${id}`, body: { content: `Hi ${i}` } }),
  },
  [`DELETE ${A}/canned_responses/{id}`]: {
    prepare: canned,
    request: (w, _s, id) => ({ method: 'DELETE', path: `${w.account.base}/canned_responses/${id}` }),
  },

  [`POST ${A}/agents`]: {
    request: (w) => ({
      method: 'POST',
      path: `${w.account.base}/agents`,
      body: { name: 'New agent', email: `${key(w, 'new')}@example.com`, role: 'agent', availability_status: 'busy' },
    }),
  },
  [`PATCH ${A}/agents/{id}`]: {
    setup: agent,
    request: (w, id, _p, i) => ({
      method: 'PATCH',
      path: `${w.account.base}/agents/${id}`,
      body: { role: i % 2 ? 'administrator' : 'agent', auto_offline: false },
    }),
  },
  [`PUT ${A}/agents/{id}`]: {
    setup: agent,
    request: (w, id, _p, i) => ({
      method: 'PUT',
      path: `${w.account.base}/agents/${id}`,
      body: { availability: i % 2 ? 'busy' : 'online' },
    }),
  },
  [`DELETE ${A}/agents/{id}`]: { prepare: agent, request: (w, _s, id) => ({ method: 'DELETE', path: `${w.account.base}/agents/${id}` }) },
  [`GET ${A}/assignable_agents`]: {
    setup: async (w) => {
      const [ids, a] = await Promise.all([Promise.all([inbox(w), inbox(w)]), agent(w)]);
      for (const id of ids) await w.account.admin.api.post(`${w.account.base}/inbox_members`, { inbox_id: id, user_ids: [a] });
      return ids;
    },
    request: (w, ids: number[]) => ({
      method: 'GET',
      path: `${w.account.base}/assignable_agents?${ids.map((id) => `inbox_ids[]=${id}`).join('&')}`,
    }),
  },

  [`POST ${C}/mute`]: { setup: conversation, request: (w, id) => ({ method: 'POST', path: conv(w, id, '/mute') }) },
  [`POST ${C}/unmute`]: { setup: conversation, request: (w, id) => ({ method: 'POST', path: conv(w, id, '/unmute') }) },
  [`POST ${C}/unread`]: { setup: conversation, request: (w, id) => ({ method: 'POST', path: conv(w, id, '/unread'), status: 204 }) },
  [`GET ${C}/participants`]: {
    setup: async (w) => {
      const id = await conversation(w);
      await w.account.admin.api.post(conv(w, id, '/participants'), { user_ids: [w.account.admin.id] });
      return id;
    },
    request: (w, id) => ({ method: 'GET', path: conv(w, id, '/participants') }),
  },
  [`POST ${C}/participants`]: {
    setup: conversation,
    prepare: (w, id) => w.account.admin.api.delete(conv(w, id, '/participants'), { user_ids: [w.account.admin.id] }),
    request: (w, id) => ({ method: 'POST', path: conv(w, id, '/participants'), body: { user_ids: [w.account.admin.id] } }),
  },
  [`PATCH ${C}/participants`]: {
    setup: conversation,
    request: (w, id, _p, i) => ({
      method: 'PATCH',
      path: conv(w, id, '/participants'),
      body: { user_ids: i % 2 ? [w.account.admin.id] : [] },
    }),
  },
  [`PUT ${C}/participants`]: {
    setup: conversation,
    request: (w, id, _p, i) => ({
      method: 'PUT',
      path: conv(w, id, '/participants'),
      body: { user_ids: i % 2 ? [] : [w.account.admin.id] },
    }),
  },
  [`DELETE ${C}/participants`]: {
    setup: conversation,
    prepare: (w, id) => w.account.admin.api.post(conv(w, id, '/participants'), { user_ids: [w.account.admin.id] }),
    request: (w, id) => ({ method: 'DELETE', path: conv(w, id, '/participants'), body: { user_ids: [w.account.admin.id] } }),
  },
  [`POST ${A}/bulk_actions`]: {
    setup: async (w) => Promise.all([conversation(w), conversation(w), conversation(w)]),
    request: (w, ids: number[], _p, i) => ({
      method: 'POST',
      path: `${w.account.base}/bulk_actions`,
      body: { type: 'Conversation', ids, fields: { status: i % 2 ? 'open' : 'resolved' }, labels: { add: ['bulk'] } },
    }),
  },

  [`GET ${A}/integrations/apps`]: { setup: hook, request: (w) => ({ method: 'GET', path: `${w.account.base}/integrations/apps` }) },
  [`POST ${A}/integrations/hooks`]: {
    setup: inbox,
    request: (w, inboxId) => ({
      method: 'POST',
      path: `${w.account.base}/integrations/hooks`,
      body: { app_id: 'dialogflow', inbox_id: inboxId, settings: { project_id: 'bench', credentials: { type: 'service_account' } } },
    }),
  },
  [`PATCH ${A}/integrations/hooks/{id}`]: {
    setup: hook,
    request: (w, id, _p, i) => ({
      method: 'PATCH',
      path: `${w.account.base}/integrations/hooks/${id}`,
      body: { settings: { project_id: `p${i}`, credentials: {} } },
    }),
  },
  [`PUT ${A}/integrations/hooks/{id}`]: {
    setup: hook,
    request: (w, id, _p, i) => ({
      method: 'PUT',
      path: `${w.account.base}/integrations/hooks/${id}`,
      body: { status: i % 2 ? 'enabled' : 'disabled' },
    }),
  },
  [`DELETE ${A}/integrations/hooks/{id}`]: {
    prepare: hook,
    request: (w, _s, id) => ({ method: 'DELETE', path: `${w.account.base}/integrations/hooks/${id}` }),
  },

  // Global search: a contact named with a fresh term, a conversation of it with a message holding the term.
  ...Object.fromEntries(
    ['search', 'search/contacts', 'search/conversations', 'search/messages'].map((path) => [
      `GET ${A}/${path}`,
      {
        setup: searchable,
        request: (w: BenchWorld, term: string) => ({ method: 'GET' as const, path: `${w.account.base}/${path}?q=${term}` }),
      },
    ]),
  ),
};

async function searchable(w: BenchWorld): Promise<string> {
  const term = key(w, 'needle').replace(/_/g, '');
  const contact = await w.account.admin.api.post(`${w.account.base}/contacts`, {
    name: `Bench ${term}`,
    email: `${key(w, 'c')}@example.com`,
  });
  const id = await post(w, '/conversations', { inbox_id: await inbox(w), contact_id: contact.body.payload.contact.id });
  await w.account.admin.api.post(`${w.account.base}/conversations/${id}/messages`, {
    content: `Looking for ${term}`,
    message_type: 'incoming',
  });
  return term;
}
