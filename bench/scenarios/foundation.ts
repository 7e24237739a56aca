import type { Scenarios } from './types.ts';

const P = '/platform/api/v1';

export const foundation: Scenarios = {
  'GET /health': { request: () => ({ method: 'GET', path: '/health' }) },
  'GET /api/openapi.json': { request: () => ({ method: 'GET', path: '/api/openapi.json' }) },
  $default: { request: () => ({ method: 'GET', path: '/no/such/route', status: 404 }) },
  'GET /api/v1/profile': { request: () => ({ method: 'GET', path: '/api/v1/profile' }) },
  'GET /api/v1/accounts/{account_id}': { request: (w) => ({ method: 'GET', path: w.account.base }) },
  'PATCH /api/v1/accounts/{account_id}': {
    request: (w, _s, _p, i) => ({ method: 'PATCH', path: w.account.base, body: { name: `Bench ${i}` } }),
  },
  'PUT /api/v1/accounts/{account_id}': {
    request: (w, _s, _p, i) => ({ method: 'PUT', path: w.account.base, body: { name: `Bench ${i}` } }),
  },

  [`GET ${P}/accounts`]: { request: (w) => ({ method: 'GET', path: `${P}/accounts`, client: w.platform }) },
  [`POST ${P}/accounts`]: {
    request: (w) => ({ method: 'POST', path: `${P}/accounts`, body: { name: w.unique('acct') }, client: w.platform }),
  },
  [`GET ${P}/accounts/{account_id}`]: { request: (w) => ({ method: 'GET', path: `${P}/accounts/${w.account.id}`, client: w.platform }) },
  [`PATCH ${P}/accounts/{account_id}`]: {
    request: (w, _s, _p, i) => ({
      method: 'PATCH',
      path: `${P}/accounts/${w.account.id}`,
      body: { custom_attributes: { i } },
      client: w.platform,
    }),
  },
  [`PUT ${P}/accounts/{account_id}`]: {
    request: (w, _s, _p, i) => ({
      method: 'PUT',
      path: `${P}/accounts/${w.account.id}`,
      body: { custom_attributes: { i } },
      client: w.platform,
    }),
  },
  [`DELETE ${P}/accounts/{account_id}`]: {
    prepare: async (w) => (await w.platform.post(`${P}/accounts`, { name: w.unique('gone') })).body.id,
    request: (w, _s, id) => ({ method: 'DELETE', path: `${P}/accounts/${id}`, client: w.platform }),
  },

  [`GET ${P}/accounts/{account_id}/account_users`]: {
    request: (w) => ({ method: 'GET', path: `${P}/accounts/${w.account.id}/account_users`, client: w.platform }),
  },
  [`POST ${P}/accounts/{account_id}/account_users`]: {
    request: (w, _s, _p, i) => ({
      method: 'POST',
      path: `${P}/accounts/${w.account.id}/account_users`,
      body: { user_id: w.account.agent.id, role: i % 2 ? 'agent' : 'agent' },
      client: w.platform,
    }),
  },
  [`DELETE ${P}/accounts/{account_id}/account_users`]: {
    prepare: async (w) => {
      const u = (await w.platform.post(`${P}/users`, { name: 'tmp', email: `${w.unique('tmp')}@bench.example`, password: 'Passw0rd!' }))
        .body;
      await w.platform.post(`${P}/accounts/${w.account.id}/account_users`, { user_id: u.id, role: 'agent' });
      return u.id;
    },
    request: (w, _s, userId) => ({
      method: 'DELETE',
      path: `${P}/accounts/${w.account.id}/account_users`,
      body: { user_id: userId },
      client: w.platform,
    }),
  },

  [`POST ${P}/users`]: {
    request: (w) => ({
      method: 'POST',
      path: `${P}/users`,
      body: { name: 'Bench', email: `${w.unique('u')}@bench.example`, password: 'Passw0rd!' },
      client: w.platform,
    }),
  },
  [`GET ${P}/users/{id}`]: { request: (w) => ({ method: 'GET', path: `${P}/users/${w.account.admin.id}`, client: w.platform }) },
  [`PATCH ${P}/users/{id}`]: {
    request: (w, _s, _p, i) => ({
      method: 'PATCH',
      path: `${P}/users/${w.account.admin.id}`,
      body: { display_name: `Admin ${i}` },
      client: w.platform,
    }),
  },
  [`PUT ${P}/users/{id}`]: {
    request: (w, _s, _p, i) => ({
      method: 'PUT',
      path: `${P}/users/${w.account.admin.id}`,
      body: { display_name: `Admin ${i}` },
      client: w.platform,
    }),
  },
  [`DELETE ${P}/users/{id}`]: {
    prepare: async (w) =>
      (await w.platform.post(`${P}/users`, { name: 'gone', email: `${w.unique('gone')}@bench.example`, password: 'Passw0rd!' })).body.id,
    request: (w, _s, id) => ({ method: 'DELETE', path: `${P}/users/${id}`, client: w.platform }),
  },
  [`POST ${P}/users/{id}/token`]: {
    request: (w) => ({ method: 'POST', path: `${P}/users/${w.account.admin.id}/token`, client: w.platform }),
  },

  [`GET ${P}/agent_bots`]: {
    setup: async (w) => {
      for (let i = 0; i < 3; i++) await w.platform.post(`${P}/agent_bots`, { name: `bot ${i}` });
    },
    request: (w) => ({ method: 'GET', path: `${P}/agent_bots`, client: w.platform }),
  },
  [`POST ${P}/agent_bots`]: {
    request: (w) => ({ method: 'POST', path: `${P}/agent_bots`, body: { name: w.unique('bot') }, client: w.platform }),
  },
  [`GET ${P}/agent_bots/{id}`]: {
    setup: async (w) => (await w.platform.post(`${P}/agent_bots`, { name: 'shown' })).body.id,
    request: (w, id) => ({ method: 'GET', path: `${P}/agent_bots/${id}`, client: w.platform }),
  },
  [`PATCH ${P}/agent_bots/{id}`]: {
    setup: async (w) => (await w.platform.post(`${P}/agent_bots`, { name: 'patched' })).body.id,
    request: (w, id, _p, i) => ({ method: 'PATCH', path: `${P}/agent_bots/${id}`, body: { description: `v${i}` }, client: w.platform }),
  },
  [`PUT ${P}/agent_bots/{id}`]: {
    setup: async (w) => (await w.platform.post(`${P}/agent_bots`, { name: 'put' })).body.id,
    request: (w, id, _p, i) => ({ method: 'PUT', path: `${P}/agent_bots/${id}`, body: { description: `v${i}` }, client: w.platform }),
  },
  [`DELETE ${P}/agent_bots/{id}`]: {
    prepare: async (w) => (await w.platform.post(`${P}/agent_bots`, { name: 'gone' })).body.id,
    request: (w, _s, id) => ({ method: 'DELETE', path: `${P}/agent_bots/${id}`, client: w.platform }),
  },
};
