import { client, type Client } from '../../test/support/http.ts';
import type { BenchWorld, Scenarios } from './types.ts';

// The public interface (docs/chatwoot.md#public-api, contract endpoints 13-14, docs/contract.md#endpoints): one
// scenario per route, called without a credential as an end client does.

const I = '/public/api/v1/inboxes/{inbox_identifier}';
const C = `${I}/contacts/{contact_identifier}`;
const V = `${C}/conversations/{conversation_id}`;

interface Caller {
  api: Client;
  inbox: string;
  contact: string;
  conversation: number;
}

const ok = <T = any>(res: { status: number; text: string; body: T }, what: string): T => {
  if (res.status !== 200) throw new Error(`bench setup ${what}: ${res.status} ${res.text}`);
  return res.body;
};

/** An API inbox, a contact in it and a conversation holding `messages` messages from the contact. */
async function caller(w: BenchWorld, messages = 0): Promise<Caller> {
  const api = client(w.baseUrl);
  const inbox = ok(
    await w.account.admin.api.post(`${w.account.base}/inboxes`, { name: w.unique('api'), channel: { type: 'api' } }),
    'inbox',
  ).inbox_identifier as string;
  const contact = ok(
    await api.post(`/public/api/v1/inboxes/${inbox}/contacts`, { name: 'Bench client', email: `${w.unique('c')}@bench.example` }),
    'contact',
  ).source_id as string;
  const conversation = ok(await api.post(`/public/api/v1/inboxes/${inbox}/contacts/${contact}/conversations`, {}), 'conversation')
    .id as number;
  for (let i = 0; i < messages; i++) {
    ok(
      await api.post(`/public/api/v1/inboxes/${inbox}/contacts/${contact}/conversations/${conversation}/messages`, {
        content: `message ${i}`,
      }),
      'message',
    );
  }
  return { api, inbox, contact, conversation };
}

const inboxPath = (s: Caller) => `/public/api/v1/inboxes/${s.inbox}`;
const contactPath = (s: Caller) => `${inboxPath(s)}/contacts/${s.contact}`;
const conversationPath = (s: Caller, id = s.conversation) => `${contactPath(s)}/conversations/${id}`;

async function selectMessage(w: BenchWorld, s: Caller) {
  const m = ok(
    await w.account.admin.api.post(`${w.account.base}/conversations/${s.conversation}/messages`, {
      content: 'Pick one',
      content_type: 'input_select',
      content_attributes: {
        items: [
          { title: 'Yes', value: 'yes' },
          { title: 'No', value: 'no' },
        ],
      },
    }),
    'select message',
  );
  return { ...s, message: m.id as number };
}

const submit = (i: number) => ({ submitted_values: [{ title: i % 2 ? 'Yes' : 'No', value: i % 2 ? 'yes' : 'no' }] });

export const publicInterface: Scenarios = {
  [`GET ${I}`]: { setup: (w) => caller(w), request: (_w, s: Caller) => ({ method: 'GET', path: inboxPath(s), client: s.api }) },
  [`POST ${I}/contacts`]: {
    setup: (w) => caller(w),
    request: (w, s: Caller) => ({
      method: 'POST',
      path: `${inboxPath(s)}/contacts`,
      body: { name: 'New', email: `${w.unique('n')}@bench.example` },
      client: s.api,
    }),
  },
  [`GET ${C}`]: { setup: (w) => caller(w), request: (_w, s: Caller) => ({ method: 'GET', path: contactPath(s), client: s.api }) },
  [`PATCH ${C}`]: {
    setup: (w) => caller(w),
    request: (_w, s: Caller, _p, i) => ({ method: 'PATCH', path: contactPath(s), body: { name: `Client ${i}` }, client: s.api }),
  },
  [`PUT ${C}`]: {
    setup: (w) => caller(w),
    request: (_w, s: Caller, _p, i) => ({ method: 'PUT', path: contactPath(s), body: { name: `Client ${i}` }, client: s.api }),
  },
  [`GET ${C}/conversations`]: {
    setup: async (w) => {
      const s = await caller(w, 5);
      for (let i = 0; i < 2; i++) ok(await s.api.post(`${contactPath(s)}/conversations`, {}), 'conversation');
      return s;
    },
    request: (_w, s: Caller) => ({ method: 'GET', path: `${contactPath(s)}/conversations`, client: s.api }),
  },
  [`POST ${C}/conversations`]: {
    setup: (w) => caller(w),
    request: (_w, s: Caller) => ({
      method: 'POST',
      path: `${contactPath(s)}/conversations`,
      body: { custom_attributes: { from: 'bench' } },
      client: s.api,
    }),
  },
  // Contract endpoint 13 (docs/contract.md#endpoints): a conversation of 10 messages.
  [`GET ${V}`]: { setup: (w) => caller(w, 10), request: (_w, s: Caller) => ({ method: 'GET', path: conversationPath(s), client: s.api }) },
  [`POST ${V}/toggle_status`]: {
    setup: (w) => caller(w),
    // A fresh open conversation each time, so every call resolves one.
    prepare: async (_w, s: Caller) => ok(await s.api.post(`${contactPath(s)}/conversations`, {}), 'conversation').id,
    request: (_w, s: Caller, id) => ({ method: 'POST', path: `${conversationPath(s, id as number)}/toggle_status`, client: s.api }),
  },
  [`POST ${V}/toggle_typing`]: {
    setup: (w) => caller(w),
    request: (_w, s: Caller, _p, i) => ({
      method: 'POST',
      path: `${conversationPath(s)}/toggle_typing`,
      body: { typing_status: i % 2 ? 'off' : 'on' },
      client: s.api,
    }),
  },
  // Contract endpoint 14 (docs/contract.md#endpoints).
  [`POST ${V}/update_last_seen`]: {
    setup: (w) => caller(w),
    request: (_w, s: Caller) => ({ method: 'POST', path: `${conversationPath(s)}/update_last_seen`, client: s.api }),
  },
  [`GET ${V}/messages`]: {
    setup: (w) => caller(w, 25),
    request: (_w, s: Caller) => ({ method: 'GET', path: `${conversationPath(s)}/messages`, client: s.api }),
  },
  [`POST ${V}/messages`]: {
    setup: (w) => caller(w),
    request: (_w, s: Caller, _p, i) => ({
      method: 'POST',
      path: `${conversationPath(s)}/messages`,
      body: { content: `Hello ${i}` },
      client: s.api,
    }),
  },
  [`PATCH ${V}/messages/{message_id}`]: {
    setup: async (w) => selectMessage(w, await caller(w)),
    request: (_w, s: Caller & { message: number }, _p, i) => ({
      method: 'PATCH',
      path: `${conversationPath(s)}/messages/${s.message}`,
      body: submit(i),
      client: s.api,
    }),
  },
  [`PUT ${V}/messages/{message_id}`]: {
    setup: async (w) => selectMessage(w, await caller(w)),
    request: (_w, s: Caller & { message: number }, _p, i) => ({
      method: 'PUT',
      path: `${conversationPath(s)}/messages/${s.message}`,
      body: submit(i),
      client: s.api,
    }),
  },
};
