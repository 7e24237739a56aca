import type { BenchWorld, Scenarios } from './types.ts';

// Issue 32's contact records and mail: contact notes, companies, notification snooze, transcript, contacts
// export and import. One scenario per route.

const A = '/api/v1/accounts/{account_id}';
const ok = async (w: BenchWorld, method: 'POST' | 'GET', path: string, body?: unknown) => {
  const api = w.account.admin.api;
  const res = method === 'POST' ? await api.post(`${w.account.base}${path}`, body) : await api.get(`${w.account.base}${path}`);
  if (res.status !== 200) throw new Error(`bench setup ${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};
const contact = async (w: BenchWorld): Promise<number> =>
  (await ok(w, 'POST', '/contacts', { name: 'Bench noted', email: `${w.unique('noted')}@bench.example` })).payload.contact.id;
/** A contact with one note: [contact id, note id]. */
const noted = async (w: BenchWorld): Promise<[number, number]> => {
  const id = await contact(w);
  return [id, (await ok(w, 'POST', `/contacts/${id}/notes`, { content: 'Bench note' })).id];
};

/** A company on a business domain of its own, with one linked contact: [company id, domain]. */
const company = async (w: BenchWorld): Promise<[number, string]> => {
  const domain = `${w.unique('co')}.bench.example`.toLowerCase().replace(/[^a-z0-9.-]/g, '-');
  const id = (await ok(w, 'POST', '/companies', { company: { name: `Bench ${domain}`, domain } })).payload.id;
  await ok(w, 'POST', '/contacts', { name: 'Bench staff', email: `staff@${domain}` });
  return [id, domain];
};
/** Thirty companies, so that lists read a realistic partition. */
const companies = async (w: BenchWorld) => {
  for (let i = 0; i < 30; i++) await ok(w, 'POST', '/companies', { name: `Bench company ${i}` });
};

/** A conversation in a fresh API inbox with one incoming message. */
const conversation = async (w: BenchWorld): Promise<number> => {
  const inbox = (await ok(w, 'POST', '/inboxes', { name: w.unique('inbox'), channel: { type: 'api' } })).id;
  const id = (await ok(w, 'POST', '/conversations', { inbox_id: inbox, contact_id: await contact(w) })).id;
  await ok(w, 'POST', `/conversations/${id}/messages`, { content: 'hello', message_type: 'incoming' });
  return id;
};

/** A CSV of 100 contacts (name, email, a custom attribute) as the multipart upload Chatwoot's dashboard sends. */
const importForm = (w: BenchWorld) => {
  const tag = w.unique('imp').toLowerCase();
  const rows = Array.from({ length: 100 }, (_, i) => `Bench ${i},${tag}-${i}@bench.example,gold`);
  const f = new FormData();
  f.append('import_file', new Blob([['name,email,plan', ...rows].join('\n')], { type: 'text/csv' }), 'contacts.csv');
  return f;
};

export const contactRecords: Scenarios = {
  // Answered once the file is read, stored and its job written: the pipeline imports the rows afterwards.
  [`POST ${A}/contacts/import`]: {
    request: (w) => ({ method: 'POST', path: `${w.account.base}/contacts/import`, body: importForm(w) }),
  },
  // Answered at once: the pipeline makes the CSV and mails it.
  [`POST ${A}/contacts/export`]: {
    setup: contact,
    request: (w) => ({ method: 'POST', path: `${w.account.base}/contacts/export`, body: { column_names: ['id', 'name', 'email'] } }),
  },
  // A fresh conversation per call: a conversation takes 3 transcripts an hour (and a recipient 5).
  [`POST ${A}/conversations/{conversation_id}/transcript`]: {
    prepare: conversation,
    request: (w, _s, id) => ({
      method: 'POST',
      path: `${w.account.base}/conversations/${id}/transcript`,
      body: { email: `${w.unique('t')}@bench.example` },
    }),
  },

  [`GET ${A}/companies`]: {
    setup: companies,
    request: (w) => ({ method: 'GET', path: `${w.account.base}/companies?page=1&sort=-contacts_count` }),
  },
  [`GET ${A}/companies/search`]: {
    setup: companies,
    request: (w) => ({ method: 'GET', path: `${w.account.base}/companies/search?q=company%201` }),
  },
  [`POST ${A}/companies`]: {
    request: (w, _s, _p, i) => ({ method: 'POST', path: `${w.account.base}/companies`, body: { company: { name: `New ${i}` } } }),
  },
  [`GET ${A}/companies/{id}`]: {
    setup: company,
    request: (w, [id]) => ({ method: 'GET', path: `${w.account.base}/companies/${id}` }),
  },
  [`PATCH ${A}/companies/{id}`]: {
    setup: company,
    request: (w, [id], _p, i) => ({
      method: 'PATCH',
      path: `${w.account.base}/companies/${id}`,
      body: { company: { description: `d${i}` } },
    }),
  },
  [`PUT ${A}/companies/{id}`]: {
    setup: company,
    request: (w, [id], _p, i) => ({ method: 'PUT', path: `${w.account.base}/companies/${id}`, body: { name: `Renamed ${i}` } }),
  },
  [`DELETE ${A}/companies/{id}`]: {
    prepare: company,
    request: (w, _s, made) => ({ method: 'DELETE', path: `${w.account.base}/companies/${(made as [number, string])[0]}` }),
  },

  [`GET ${A}/contacts/{id}/notes`]: {
    setup: async (w) => {
      const [id] = await noted(w);
      for (let i = 0; i < 4; i++) await ok(w, 'POST', `/contacts/${id}/notes`, { content: `Bench note ${i}` });
      return id;
    },
    request: (w, id) => ({ method: 'GET', path: `${w.account.base}/contacts/${id}/notes` }),
  },
  [`POST ${A}/contacts/{id}/notes`]: {
    setup: contact,
    request: (w, id, _p, i) => ({
      method: 'POST',
      path: `${w.account.base}/contacts/${id}/notes`,
      body: { note: { content: `Note ${i}` } },
    }),
  },
  [`PATCH ${A}/contacts/{id}/notes/{note_id}`]: {
    setup: noted,
    request: (w, [id, note], _p, i) => ({
      method: 'PATCH',
      path: `${w.account.base}/contacts/${id}/notes/${note}`,
      body: { content: `Edited ${i}` },
    }),
  },
  [`PUT ${A}/contacts/{id}/notes/{note_id}`]: {
    setup: noted,
    request: (w, [id, note], _p, i) => ({
      method: 'PUT',
      path: `${w.account.base}/contacts/${id}/notes/${note}`,
      body: { content: `Put ${i}` },
    }),
  },
  [`DELETE ${A}/contacts/{id}/notes/{note_id}`]: {
    setup: contact,
    prepare: async (w, id) => (await ok(w, 'POST', `/contacts/${id}/notes`, { content: 'Doomed' })).id,
    request: (w, id, note) => ({ method: 'DELETE', path: `${w.account.base}/contacts/${id}/notes/${note}` }),
  },
};
