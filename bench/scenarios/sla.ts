import { until } from '../../test/support/until.ts';
import type { BenchWorld, Scenarios } from './types.ts';

// SLA (docs/sla.md): policies' CRUD; applied_slas, its metrics and download over BENCH_SLA_CONVERSATIONS conversations
// (100 unless set) with a 1-second first-response policy applied through the API, missed by the pipeline's wake-ups.
// Reads depend on the applied SLAs of the range, never on the account's other conversations.

const A = '/api/v1/accounts/{account_id}';
const conversations = () => Number(process.env.BENCH_SLA_CONVERSATIONS ?? 100);

const ok = <T = any>(res: { status: number; text: string; body: T }, what: string): T => {
  if (res.status !== 200) throw new Error(`bench setup ${what}: ${res.status} ${res.text}`);
  return res.body;
};

const policy = async (w: BenchWorld, body: Record<string, unknown> = {}) =>
  ok(await w.account.admin.api.post(`${w.account.base}/sla_policies`, { name: w.unique('sla'), ...body }), 'policy').payload.id as number;

interface Seeded {
  policyId: number;
  since: number;
  until: number;
}

let seeded: Promise<Seeded> | undefined;

async function seed(w: BenchWorld): Promise<Seeded> {
  const api = w.account.admin.api;
  const since = Math.floor(Date.now() / 1000) - 60;
  const policyId = await policy(w, { first_response_time_threshold: 1 });
  const inbox = ok(await api.post(`${w.account.base}/inboxes`, { name: w.unique('sla'), channel: { type: 'api' } }), 'inbox');
  const contact = ok(
    await api.post(`${w.account.base}/contacts`, { name: 'SLA contact', email: `${w.unique('s')}@example.com` }),
    'contact',
  );
  const n = conversations();
  // The applied SLAs and their misses are the pipeline's work: it runs for this setup only.
  await w.pipeline?.resume();
  try {
    await applyAndMiss(w, policyId, inbox.id, contact.payload.contact.id, n);
  } finally {
    await w.pipeline?.pause();
  }
  return { policyId, since, until: Math.floor(Date.now() / 1000) + 60 };
}

async function applyAndMiss(w: BenchWorld, policyId: number, inboxId: number, contactId: number, n: number) {
  const api = w.account.admin.api;
  for (let i = 0; i < n; i++) {
    const c = ok(await api.post(`${w.account.base}/conversations`, { inbox_id: inboxId, contact_id: contactId }), 'conv');
    ok(await api.patch(`${w.account.base}/conversations/${c.id}`, { sla_policy_id: policyId }), 'apply');
  }
  // Every deadline passes a second later; the wake-ups find the misses.
  await until(
    async () => ok(await api.get(`${w.account.base}/applied_slas/metrics?sla_policy_id=${policyId}`), 'metrics').number_of_sla_misses >= n,
    { what: 'the SLA misses', timeoutMs: 120_000, everyMs: 500 },
  );
}

const once = (w: BenchWorld) => (seeded ??= seed(w));
const filter = (r: Seeded) => `since=${r.since}&until=${r.until}&sla_policy_id=${r.policyId}`;
const one = `${A}/sla_policies/{id}`;
const path = (w: BenchWorld, id: unknown) => `${w.account.base}/sla_policies/${id}`;

export const sla: Scenarios = {
  [`GET ${A}/sla_policies`]: { setup: (w) => policy(w), request: (w) => ({ method: 'GET', path: `${w.account.base}/sla_policies` }) },
  [`POST ${A}/sla_policies`]: {
    request: (w) => ({
      method: 'POST',
      path: `${w.account.base}/sla_policies`,
      body: { name: w.unique('sla'), first_response_time_threshold: 600 },
    }),
  },
  [`GET ${one}`]: { setup: (w) => policy(w), request: (w, id) => ({ method: 'GET', path: path(w, id) }) },
  [`PATCH ${one}`]: {
    setup: (w) => policy(w),
    request: (w, id, _p, i) => ({ method: 'PATCH', path: path(w, id), body: { description: `d${i}` } }),
  },
  [`PUT ${one}`]: {
    setup: (w) => policy(w),
    request: (w, id, _p, i) => ({ method: 'PUT', path: path(w, id), body: { description: `d${i}` } }),
  },
  [`DELETE ${one}`]: { prepare: (w) => policy(w), request: (w, _s, id) => ({ method: 'DELETE', path: path(w, id) }) },
  [`GET ${A}/applied_slas`]: {
    setup: once,
    request: (w, r: Seeded) => ({ method: 'GET', path: `${w.account.base}/applied_slas?${filter(r)}&page=2` }),
  },
  [`GET ${A}/applied_slas/metrics`]: {
    setup: once,
    request: (w, r: Seeded) => ({ method: 'GET', path: `${w.account.base}/applied_slas/metrics?${filter(r)}` }),
  },
  [`GET ${A}/applied_slas/download`]: {
    setup: once,
    request: (w, r: Seeded) => ({ method: 'GET', path: `${w.account.base}/applied_slas/download?${filter(r)}` }),
  },
};
