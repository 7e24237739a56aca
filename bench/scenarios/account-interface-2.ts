import type { BenchWorld, Scenarios } from './types.ts';

// Labels, custom filters, webhooks (and the audit log), automation rules and account agent bots: one scenario per route.

const A = '/api/v1/accounts/{account_id}';
const post = async (w: BenchWorld, path: string, body: unknown): Promise<number> => {
  const res = await w.account.admin.api.post(`${w.account.base}${path}`, body);
  if (res.status !== 200) throw new Error(`bench setup ${path}: ${res.status} ${res.text}`);
  return (res.body.payload?.id ?? res.body.id) as number;
};

const label = (w: BenchWorld) => post(w, '/labels', { title: w.unique('label').replace(/[^\w-]/g, '-') });
const filter = (w: BenchWorld) => post(w, '/custom_filters', { name: 'Open', query: { payload: [] } });
const webhook = (w: BenchWorld) => post(w, '/webhooks', { url: `https://hooks.example.com/${w.unique('wh')}` });
const rule = (w: BenchWorld) =>
  post(w, '/automation_rules', {
    name: 'Tag help',
    event_name: 'message_created',
    conditions: [
      { attribute_key: 'content', filter_operator: 'contains', values: ['help'], query_operator: 'and' },
      { attribute_key: 'message_type', filter_operator: 'equal_to', values: ['incoming'] },
    ],
    actions: [{ action_name: 'add_label', action_params: ['support'] }],
  });
const bot = (w: BenchWorld) => post(w, '/agent_bots', { name: 'Bench bot', outgoing_url: 'https://bot.example.com/hook' });

/** Read, update and delete scenarios of one resource: `make` creates the object they act on. */
function crud(
  resource: string,
  make: (w: BenchWorld) => Promise<number>,
  change: (w: BenchWorld, i: number) => unknown,
  opts: { deleted?: number; show?: boolean } = {},
): Scenarios {
  const one = `${A}/${resource}/{id}`;
  const path = (w: BenchWorld, id: unknown) => `${w.account.base}/${resource}/${id}`;
  return {
    [`GET ${A}/${resource}`]: { setup: make, request: (w) => ({ method: 'GET', path: `${w.account.base}/${resource}` }) },
    ...(opts.show === false ? {} : { [`GET ${one}`]: { setup: make, request: (w, id) => ({ method: 'GET', path: path(w, id) }) } }),
    [`PATCH ${one}`]: { setup: make, request: (w, id, _p, i) => ({ method: 'PATCH', path: path(w, id), body: change(w, i) }) },
    [`PUT ${one}`]: { setup: make, request: (w, id, _p, i) => ({ method: 'PUT', path: path(w, id), body: change(w, i) }) },
    [`DELETE ${one}`]: { prepare: make, request: (w, _s, id) => ({ method: 'DELETE', path: path(w, id), status: opts.deleted ?? 200 }) },
  };
}

export const accountInterface2: Scenarios = {
  ...crud('labels', label, (w) => ({ title: w.unique('l').replace(/[^\w-]/g, '-') })),
  [`POST ${A}/labels`]: {
    request: (w) => ({ method: 'POST', path: `${w.account.base}/labels`, body: { title: w.unique('l').replace(/[^\w-]/g, '-') } }),
  },

  ...crud('custom_filters', filter, (_w, i) => ({ name: `Filter ${i}` }), { deleted: 204 }),
  [`POST ${A}/custom_filters`]: {
    // Stays below the per-user limit however many iterations run.
    prepare: async (w) => {
      const list = (await w.account.admin.api.get(`${w.account.base}/custom_filters`)).body as { id: number }[];
      if (list.length > 500) for (const f of list) await w.account.admin.api.delete(`${w.account.base}/custom_filters/${f.id}`);
    },
    request: (w) => ({ method: 'POST', path: `${w.account.base}/custom_filters`, body: { name: 'Open', query: { payload: [] } } }),
  },

  ...crud('webhooks', webhook, (w) => ({ url: `https://hooks.example.com/${w.unique('wh')}`, subscriptions: ['message_created'] }), {
    show: false,
  }),
  [`POST ${A}/webhooks`]: {
    request: (w) => ({ method: 'POST', path: `${w.account.base}/webhooks`, body: { url: `https://hooks.example.com/${w.unique('wh')}` } }),
  },
  // The webhook's recent attempts: one Query of its ring (at most 100 items).
  [`GET ${A}/webhooks/{id}/deliveries`]: {
    setup: webhook,
    request: (w, id) => ({ method: 'GET', path: `${w.account.base}/webhooks/${id}/deliveries` }),
  },
  // The account's audit log, page 1 (docs/audit.md): a Query of its newest 25 entries and a COUNT of the rest. The
  // bench's own admin changes (webhooks, rules, bots made by the scenarios around it) are its entries.
  [`GET ${A}/audit_logs`]: {
    setup: webhook,
    request: (w) => ({ method: 'GET', path: `${w.account.base}/audit_logs?page=1` }),
  },

  ...crud('automation_rules', rule, (_w, i) => ({ name: `Rule ${i}`, active: i % 2 === 0 })),
  [`POST ${A}/automation_rules`]: {
    setup: async (w) => {
      const id = await rule(w);
      return (await w.account.admin.api.get(`${w.account.base}/automation_rules/${id}`)).body.payload;
    },
    request: (w, r) => ({ method: 'POST', path: `${w.account.base}/automation_rules`, body: { ...r, id: undefined } }),
  },
  [`POST ${A}/automation_rules/{id}/clone`]: {
    setup: rule,
    request: (w, id) => ({ method: 'POST', path: `${w.account.base}/automation_rules/${id}/clone` }),
  },

  ...crud('agent_bots', bot, (_w, i) => ({ name: `Bot ${i}`, bot_config: { i } })),
  [`POST ${A}/agent_bots`]: { request: (w) => ({ method: 'POST', path: `${w.account.base}/agent_bots`, body: { name: 'Bench bot' } }) },
  [`DELETE ${A}/agent_bots/{id}/avatar`]: {
    setup: bot,
    request: (w, id) => ({ method: 'DELETE', path: `${w.account.base}/agent_bots/${id}/avatar` }),
  },
  [`POST ${A}/agent_bots/{id}/reset_access_token`]: {
    setup: bot,
    request: (w, id) => ({ method: 'POST', path: `${w.account.base}/agent_bots/${id}/reset_access_token` }),
  },
};
