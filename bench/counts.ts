import * as v from 'valibot';
import type { ConversationStatus } from '#shared/model/conversations.ts';
import type { Runtime } from '../infra/local/runtime.ts';
import type { Client } from '../test/support/http.ts';
import { seedAccountVia, type SeededAccount } from '../test/support/http.ts';
import type { instrument } from './instrument.ts';

// Counts scale (contract endpoint 4, docs/contract.md#endpoints): `GET /conversations/meta` on one account grown to
// 10, 1,000 and 10,000 conversations. The conversations are written in-process by the conversations service (the code
// `POST /conversations` runs, counters included), not through HTTP, to keep the load fast; each carries one message,
// so `q` has text to search. Every measured answer is checked against the counts expected from what was created.

const SIZES = (process.env.BENCH_COUNTS_SIZES ?? '10,1000,10000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
/**
 * Seconds the loading may take in all. DynamoDB Local runs one transaction at a time (~40-100 creates a
 * second on a small machine); a size that would not fit is lowered to the thousands that do, and said so.
 */
const LOAD_BUDGET_S = Number(process.env.BENCH_COUNTS_BUDGET_S ?? 150);
const CALLS = 20;
const Q_CALLS = 5;
const FILTER_CALLS = 5;
const WARMUP = 2;
const BATCH = 50;
/** One conversation in seven has a message with this word (in varying case). */
const TERM = 'refund';

export type Who = 'admin' | 'agent' | null;
export interface Combination {
  inbox: 0 | 1 | 2;
  status: ConversationStatus;
  assignee: Who;
  team: boolean;
}

/**
 * The (inbox, team, status, assignee) combinations the conversations cycle through: the first 10
 * conversations already use all of them, so every size reads the same counter items.
 */
export const COMBINATIONS: Combination[] = [
  { inbox: 0, status: 'open', assignee: null, team: false },
  { inbox: 0, status: 'open', assignee: 'agent', team: false },
  { inbox: 0, status: 'open', assignee: 'admin', team: true },
  { inbox: 1, status: 'open', assignee: null, team: false },
  { inbox: 1, status: 'resolved', assignee: 'admin', team: false },
  { inbox: 2, status: 'pending', assignee: null, team: false },
  { inbox: 0, status: 'snoozed', assignee: 'agent', team: false },
  { inbox: 1, status: 'open', assignee: 'agent', team: true },
  { inbox: 2, status: 'resolved', assignee: null, team: true },
  { inbox: 2, status: 'open', assignee: 'admin', team: false },
];

const hasTerm = (i: number) => i % 7 === 0;
/** A handful of conversations (one in 2,000, from the second) mention this word. */
const RARE = 'parcel';
const hasRare = (i: number) => i % 2000 === 1;

interface Made extends Combination {
  term: boolean;
  rare: boolean;
}

export type Counts = { mine_count: number; unassigned_count: number; assigned_count: number; all_count: number };

export function expected<T extends Combination>(made: T[], keep: (c: T) => boolean, me: Who): Counts {
  const rows = made.filter(keep);
  const unassigned = rows.filter((c) => c.assignee === null).length;
  return {
    mine_count: rows.filter((c) => c.assignee === me).length,
    unassigned_count: unassigned,
    assigned_count: rows.length - unassigned,
    all_count: rows.length,
  };
}

const pct50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length / 2) - 1];
const r2 = (n: number) => Math.round(n * 100) / 100;

export interface CountsVariant {
  query: string;
  caller: 'administrator' | 'agent';
  rcu: number;
  /** RCU per call by DynamoDB command. */
  byCommand: Record<string, number>;
  p50: number;
  calls: string[];
}

/** One filter call measured at a size (contacts/filter or conversations/filter). */
export interface FilterVariant {
  route: 'contacts/filter' | 'conversations/filter';
  label: string;
  matches: number;
  rcu: number;
  byCommand: Record<string, number>;
  p50: number;
}

export interface CountsRow {
  conversations: number;
  /** Listed contacts of the account at this size (as many as conversations, plus the five they run on). */
  contacts?: number;
  counterItems: number;
  meta: CountsVariant[];
  q: CountsVariant & { matches: number };
  filters?: FilterVariant[];
  /** `q` with a term a handful of conversations hold. */
  qRare: CountsVariant & { matches: number };
  /** `q` on the list and search routes (page 1), the unselective and the rare term. */
  qRoutes?: QRoute[];
  /** List pages without `q` (page 1): the whole account, an inbox, the agent's own, every status. */
  lists?: QRoute[];
  /** The `q` index: segments, packs and the messages they hold, messages still in the tail, write units of sealing per sealed message. */
  index: { segments: number; packs: number; packed: number; tail: number; wcuPerMessage: number };
  loadSeconds: number;
}

export interface QRoute {
  route: string;
  matches: number;
  rcu: number;
  byCommand: Record<string, number>;
  p50: number;
}

export interface CountsResult {
  sizes: number[];
  rows: CountsRow[];
  /** Why sizes differ from the requested ones, if they do. */
  note?: string;
}

type Recorder = ReturnType<typeof instrument>;

export async function measureCounts(opts: {
  baseUrl: string;
  platform: Client;
  recorder: Recorder;
  /** Paused throughout: the event pipeline's own table traffic would be counted against meta. */
  pipeline: Runtime['pipeline'];
  log: (line: string) => void;
}): Promise<CountsResult> {
  const { recorder, log } = opts;
  await opts.pipeline.pause();
  const { getAccount, getUser } = await import('#shared/db/repositories/identity.ts');
  const { getInbox } = await import('#shared/db/repositories/inboxes.ts');
  const { getContact } = await import('#shared/db/repositories/contacts.ts');
  const { listConversationCounters } = await import('#shared/db/repositories/counts.ts');
  const { createContact } = await import('#shared/domain/contacts/service.ts');
  const { ensureContactInbox } = await import('#shared/domain/contacts/contact-inboxes.ts');
  const { startConversation } = await import('#shared/domain/conversations/service.ts');
  const { NewMessageSchema } = await import('#shared/domain/messages/schemas.ts');
  const { ConflictError } = await import('#shared/db/transact.ts');
  const { sealSearchIndex, SEAL_LAG_S } = await import('#shared/search/index.ts');
  const { getSearchHead } = await import('#shared/db/repositories/search-index.ts');

  const s: SeededAccount = await seedAccountVia(opts.baseUrl, opts.platform, 'Counts scale');
  const ok = async (res: Promise<{ status: number; text: string; body: any }>, what: string) => {
    const r = await res;
    if (r.status !== 200) throw new Error(`counts setup ${what}: ${r.status} ${r.text.slice(0, 200)}`);
    return r.body;
  };
  const inboxIds: number[] = [];
  for (let i = 0; i < 3; i++)
    inboxIds.push((await ok(s.admin.api.post(`${s.base}/inboxes`, { name: `Counts ${i}`, channel: { type: 'api' } }), 'inbox')).id);
  // The agent sees inboxes 0 and 1.
  for (const id of inboxIds.slice(0, 2))
    await ok(s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: id, user_ids: [s.agent.id] }), 'members');
  const teamId: number = (await ok(s.admin.api.post(`${s.base}/teams`, { name: `counts-${Date.now()}` }), 'team')).id;
  const contactIds: number[] = [];
  for (let i = 0; i < 5; i++) {
    contactIds.push(
      (
        await ok(
          s.admin.api.post(`${s.base}/contacts`, { name: `Customer ${i}`, email: `counts-${Date.now()}-${i}@bench.example` }),
          'contact',
        )
      ).payload.contact.id,
    );
  }

  const account = (await getAccount(s.accountId))!;
  const actor = { type: 'user' as const, user: (await getUser(s.admin.id))!, role: 'administrator' as const };
  const inboxes = await Promise.all(inboxIds.map((id) => getInbox(s.accountId, id)));
  const contacts = await Promise.all(contactIds.map((id) => getContact(s.accountId, id)));
  const targets = await Promise.all(
    inboxes.map((inbox) =>
      Promise.all(
        contacts.map(async (contact) => ({
          inbox: inbox!,
          contact: contact!,
          contactInbox: await ensureContactInbox(s.accountId, contact!.id, inbox!.id),
        })),
      ),
    ),
  );
  const userOf = (w: Who) => (w === 'admin' ? s.admin.id : w === 'agent' ? s.agent.id : null);

  // Filters: contacts with WhatsApp-style phone numbers, one in ten with a custom attribute `plan`.
  await ok(
    s.admin.api.post(`${s.base}/custom_attribute_definitions`, {
      attribute_display_name: 'Plan',
      attribute_key: 'plan',
      attribute_model: 'contact_attribute',
    }),
    'definition',
  );
  const phoneOf = (i: number) => `+55119${String(i).padStart(8, '0')}`;
  let contactsMade = 0;
  let planned = 0;
  async function createFilterContact(i: number) {
    const gold = i % 10 === 0;
    await createContact(s.accountId, { name: `Lead ${i}`, phone_number: phoneOf(i), custom_attributes: gold ? { plan: 'gold' } : {} });
    if (gold) planned++;
    contactsMade++;
  }

  const made: Made[] = [];
  async function create(i: number) {
    const combo = COMBINATIONS[i % COMBINATIONS.length];
    const content = hasTerm(i)
      ? `Customer ${i} asks for a ${i % 2 ? 'Refund' : 'REFUND'} of order ${i}`
      : hasRare(i)
        ? `Customer ${i} reports a damaged Parcel`
        : `Customer ${i} asks where order ${i} is`;
    // An incoming message reopens a conversation: only open ones get incoming messages.
    const message = v.parse(NewMessageSchema, { content, message_type: combo.status === 'open' && i % 2 === 0 ? 'incoming' : 'outgoing' });
    const input = { status: combo.status, assignee_id: userOf(combo.assignee), team_id: combo.team ? teamId : null, message };
    for (let attempt = 0; ; attempt++) {
      try {
        const { conversation: c } = await startConversation(account, actor, targets[combo.inbox][i % contacts.length], input);
        if (
          c.status !== combo.status ||
          c.assignee_id !== input.assignee_id ||
          c.team_id !== input.team_id ||
          c.inbox_id !== inboxIds[combo.inbox]
        ) {
          throw new Error(`conversation ${c.id} is not in its combination`);
        }
        break;
      } catch (err) {
        // Parallel creates of one combination meet on its counter item; the service's create does not retry.
        if (!(err instanceof ConflictError) || attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, Math.random() * 20));
      }
    }
    made.push({ ...combo, term: hasTerm(i), rare: !hasTerm(i) && hasRare(i) });
  }

  async function measure(api: Client, query: string, n: number, check: Counts) {
    const rcu: number[] = [];
    const ms: number[] = [];
    const byCommand: Record<string, number> = {};
    let calls: string[] = [];
    for (let i = 0; i < WARMUP + n; i++) {
      recorder.take();
      const started = performance.now();
      const res = await api.get(`${s.base}/conversations/meta${query}`);
      const took = performance.now() - started;
      const recorded = recorder.take().calls;
      if (res.status !== 200) throw new Error(`meta${query} answered ${res.status}: ${res.text.slice(0, 200)}`);
      const got = res.body.meta as Counts;
      if ((Object.keys(check) as (keyof Counts)[]).some((k) => got[k] !== check[k])) {
        throw new Error(`meta${query} at ${made.length} conversations: ${JSON.stringify(got)}, expected ${JSON.stringify(check)}`);
      }
      if (i < WARMUP) continue;
      ms.push(took);
      rcu.push(recorded.reduce((t, c) => t + c.rcu, 0));
      calls = recorded.map((c) => c.command.replace(/Command$/, ''));
      if (process.env.BENCH_DEBUG && i === WARMUP)
        process.stdout.write(
          `    meta${query}:\n${recorded.map((c) => `      ${c.command} ${c.rcu} ${String(c.body).slice(0, 300)}`).join('\n')}\n`,
        );
      for (const c of recorded)
        byCommand[c.command.replace(/Command$/, '')] = (byCommand[c.command.replace(/Command$/, '')] ?? 0) + c.rcu / n;
    }
    for (const k of Object.keys(byCommand)) byCommand[k] = r2(byCommand[k]);
    return { rcu: r2(rcu.reduce((a, b) => a + b, 0) / rcu.length), byCommand, p50: r2(pct50(ms)), calls };
  }

  async function measureFilter(
    route: FilterVariant['route'],
    label: string,
    payload: unknown[],
    check: (body: any) => number,
  ): Promise<FilterVariant> {
    const rcu: number[] = [];
    const ms: number[] = [];
    const byCommand: Record<string, number> = {};
    let matches = 0;
    for (let i = 0; i < WARMUP + FILTER_CALLS; i++) {
      recorder.take();
      const started = performance.now();
      const res = await s.admin.api.post(`${s.base}/${route}`, { payload });
      const took = performance.now() - started;
      const recorded = recorder.take().calls;
      if (res.status !== 200) throw new Error(`${route} ${label} answered ${res.status}: ${res.text.slice(0, 200)}`);
      matches = check(res.body);
      if (i < WARMUP) continue;
      ms.push(took);
      rcu.push(recorded.reduce((t, c) => t + c.rcu, 0));
      for (const c of recorded)
        byCommand[c.command.replace(/Command$/, '')] = (byCommand[c.command.replace(/Command$/, '')] ?? 0) + c.rcu / FILTER_CALLS;
    }
    for (const k of Object.keys(byCommand)) byCommand[k] = r2(byCommand[k]);
    return { route, label, matches, rcu: r2(rcu.reduce((a, b) => a + b, 0) / rcu.length), byCommand, p50: r2(pct50(ms)) };
  }
  const expectCount = (what: string, got: number, want: number) => {
    if (got !== want) throw new Error(`${what} at ${made.length} conversations: ${got}, expected ${want}`);
    return got;
  };
  // What the pipeline does after messages (sealWhenDue): the tail older than its lag becomes a pack or a
  // segment (merged in tiers), by the pipeline's own minimums. Here after every batch, the lag being the
  // current second: what was created in it stays in the tail.
  let sealWcu = 0;
  const nowS = () => Math.floor(Date.now() / 1000);
  async function seal() {
    recorder.take();
    await sealSearchIndex(s.accountId, { now: nowS() + SEAL_LAG_S });
    sealWcu += recorder.take().calls.reduce((t, c) => t + c.wcu, 0);
  }

  const rows: CountsRow[] = [];
  const sizes: number[] = [];
  let note: string | undefined;
  let loading = 0;
  for (const wanted of SIZES) {
    let size = wanted;
    // The rate of a few hundred creates is a fair estimate; smaller sizes load in seconds anyway.
    if (made.length >= 500) {
      const rate = made.length / loading;
      const fits = Math.floor((made.length + rate * (LOAD_BUDGET_S - loading)) / 1000) * 1000;
      if (fits < wanted) {
        size = Math.max(fits, made.length);
        note =
          `${wanted.toLocaleString('en-US')} conversations would have taken ~${Math.round((wanted - made.length) / rate + loading)} s to load at the ` +
          `${Math.round(rate)} creates/s measured (DynamoDB Local runs one transaction at a time), over the ${LOAD_BUDGET_S} s budget, so the ` +
          `largest size measured is ${size.toLocaleString('en-US')}. \`BENCH_COUNTS_BUDGET_S=400 npm run bench\` measures ${wanted.toLocaleString('en-US')}.`;
        if (size <= made.length) break;
      }
    }
    sizes.push(size);
    const started = performance.now();
    for (let i = made.length; i < size; i += BATCH) {
      await Promise.all(Array.from({ length: Math.min(BATCH, size - i) }, (_, k) => create(i + k)));
      recorder.take();
      await seal();
    }
    for (let i = contactsMade; i < size; i += BATCH) {
      await Promise.all(Array.from({ length: Math.min(BATCH, size - i) }, (_, k) => createFilterContact(i + k)));
      recorder.take();
    }
    const loadSeconds = r2((performance.now() - started) / 1000);
    loading += loadSeconds;
    const inInbox = (c: Made, ids: number[]) => ids.includes(c.inbox);
    const open = (c: Made) => c.status === 'open';
    const variants: [string, 'administrator' | 'agent', Counts][] = [
      ['', 'administrator', expected(made, open, 'admin')],
      ['?status=all', 'administrator', expected(made, () => true, 'admin')],
      [`?inbox_id=${inboxIds[0]}`, 'administrator', expected(made, (c) => open(c) && c.inbox === 0, 'admin')],
      ['', 'agent', expected(made, (c) => open(c) && inInbox(c, [0, 1]), 'agent')],
    ];
    const meta: CountsVariant[] = [];
    for (const [query, caller, check] of variants) {
      meta.push({ query, caller, ...(await measure(caller === 'agent' ? s.agent.api : s.admin.api, query, CALLS, check)) });
    }
    // `q` ignores the status filter: every status counts.
    const qCheck = expected(made, (c) => c.term, 'admin');
    const q = {
      query: `?q=${TERM}`,
      caller: 'administrator' as const,
      matches: qCheck.all_count,
      ...(await measure(s.admin.api, `?q=${TERM}`, Q_CALLS, qCheck)),
    };
    // Filters: EvolutionAPI's phone lookup (settled on the listing), a custom attribute (every listed
    // contact read in full), the n8n status filter and one needing the conversations' attributes.
    const target = Math.floor(size / 2);
    const local = phoneOf(target).slice(1);
    const filters: FilterVariant[] = [
      await measureFilter(
        'contacts/filter',
        "phone_number equal_to (EvolutionAPI, 2 values OR'ed)",
        [
          { attribute_key: 'phone_number', filter_operator: 'equal_to', values: [local], query_operator: 'OR' },
          {
            attribute_key: 'phone_number',
            filter_operator: 'equal_to',
            values: [local.slice(0, 4) + local.slice(5)],
            query_operator: null,
          },
        ],
        (b) => expectCount('phone filter', b.meta.count, 1),
      ),
      await measureFilter(
        'contacts/filter',
        'custom attribute plan equal_to gold',
        [{ attribute_key: 'plan', filter_operator: 'equal_to', values: ['gold'] }],
        (b) => expectCount('plan filter', b.meta.count, planned),
      ),
      await measureFilter(
        'conversations/filter',
        'status equal_to open (n8n)',
        [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'] }],
        (b) => expectCount('status filter', b.meta.all_count, made.filter((c) => c.status === 'open').length),
      ),
      await measureFilter(
        'conversations/filter',
        `inbox_id equal_to one inbox AND browser_language equal_to en`,
        [
          { attribute_key: 'inbox_id', filter_operator: 'equal_to', values: [inboxIds[0]], query_operator: 'AND' },
          { attribute_key: 'browser_language', filter_operator: 'equal_to', values: ['en'] },
        ],
        (b) => expectCount('attribute filter', b.meta.all_count, 0),
      ),
    ];
    const rareCheck = expected(made, (c) => c.rare, 'admin');
    const qRare = {
      query: `?q=${RARE}`,
      caller: 'administrator' as const,
      matches: rareCheck.all_count,
      ...(await measure(s.admin.api, `?q=${RARE}`, Q_CALLS, rareCheck)),
    };
    // The list and search routes with `q`: page 1, its counts checked against what was created, and the
    // page's conversations all matching (the order is checked in test/e2e).
    const qRoutes: QRoute[] = [];
    for (const [term, check, isMatch] of [
      [TERM, qCheck, (c: string) => c.toLowerCase().includes(TERM)],
      [RARE, rareCheck, (c: string) => c.toLowerCase().includes(RARE)],
    ] as const) {
      for (const route of ['conversations', 'conversations/search', 'search/messages']) {
        const rcu: number[] = [];
        const ms: number[] = [];
        const byCommand: Record<string, number> = {};
        for (let i = 0; i < WARMUP + Q_CALLS; i++) {
          recorder.take();
          const started = performance.now();
          const res = await s.admin.api.get(`${s.base}/${route}?q=${term}`);
          const took = performance.now() - started;
          const recorded = recorder.take().calls;
          if (res.status !== 200) throw new Error(`${route}?q=${term} answered ${res.status}: ${res.text.slice(0, 200)}`);
          if (route === 'search/messages') {
            // Global search (15 a page, newest first): one message per conversation here, so as many matches as conversations.
            const { messages, meta } = res.body.payload;
            if (
              meta.total_count !== check.all_count ||
              messages.length !== Math.min(15, check.all_count) ||
              !messages.every((m: any) => isMatch(String(m.content)))
            ) {
              throw new Error(`${route}?q=${term}: ${JSON.stringify(meta)} with ${messages.length} messages, expected ${check.all_count}`);
            }
          } else {
            const meta = route === 'conversations' ? res.body.data.meta : res.body.meta;
            const payload: any[] = route === 'conversations' ? res.body.data.payload : res.body.payload;
            if (
              meta.all_count !== check.all_count ||
              meta.mine_count !== check.mine_count ||
              meta.unassigned_count !== check.unassigned_count
            ) {
              throw new Error(`${route}?q=${term}: ${JSON.stringify(meta)}, expected ${JSON.stringify(check)}`);
            }
            if (payload.length !== Math.min(25, check.all_count))
              throw new Error(`${route}?q=${term}: ${payload.length} conversations on page 1`);
            if (
              route === 'conversations/search' &&
              payload.some((c) => !c.messages?.length || !c.messages.every((m: any) => isMatch(String(m.content))))
            ) {
              throw new Error(`${route}?q=${term}: a conversation without its matching messages`);
            }
          }
          if (i < WARMUP) continue;
          ms.push(took);
          rcu.push(recorded.reduce((t, c) => t + c.rcu, 0));
          for (const c of recorded)
            byCommand[c.command.replace(/Command$/, '')] = (byCommand[c.command.replace(/Command$/, '')] ?? 0) + c.rcu / Q_CALLS;
          if (process.env.BENCH_DEBUG && i === WARMUP)
            process.stdout.write(
              `    ${route}?q=${term}:\n${recorded.map((c) => `      ${c.command} ${c.rcu} ${String(c.body).slice(0, 300)}`).join('\n')}\n`,
            );
        }
        for (const k of Object.keys(byCommand)) byCommand[k] = r2(byCommand[k]);
        qRoutes.push({
          route: `${route}?q=${term}`,
          matches: check.all_count,
          rcu: r2(rcu.reduce((a, b) => a + b, 0) / rcu.length),
          byCommand,
          p50: r2(pct50(ms)),
        });
      }
    }
    // List pages without `q` (page 1, newest activity first): counts checked, a full page (or all there are).
    const lists: QRoute[] = [];
    for (const [query, api, check] of [
      ['', s.admin.api, expected(made, open, 'admin')],
      ['?status=all', s.admin.api, expected(made, () => true, 'admin')],
      [`?inbox_id=${inboxIds[0]}`, s.admin.api, expected(made, (c) => open(c) && c.inbox === 0, 'admin')],
      ['?assignee_type=me', s.agent.api, expected(made, (c) => open(c) && inInbox(c, [0, 1]), 'agent')],
    ] as const) {
      const rcu: number[] = [];
      const ms: number[] = [];
      const byCommand: Record<string, number> = {};
      for (let i = 0; i < WARMUP + Q_CALLS; i++) {
        recorder.take();
        const started = performance.now();
        const res = await api.get(`${s.base}/conversations${query}`);
        const took = performance.now() - started;
        const recorded = recorder.take().calls;
        if (res.status !== 200) throw new Error(`conversations${query} answered ${res.status}: ${res.text.slice(0, 200)}`);
        const { meta: got, payload } = res.body.data;
        if ((Object.keys(check) as (keyof Counts)[]).some((k) => got[k] !== check[k]))
          throw new Error(`conversations${query}: ${JSON.stringify(got)}, expected ${JSON.stringify(check)}`);
        const shown = query === '?assignee_type=me' ? check.mine_count : check.all_count;
        if (payload.length !== Math.min(25, shown)) throw new Error(`conversations${query}: ${payload.length} conversations on page 1`);
        if (i < WARMUP) continue;
        ms.push(took);
        rcu.push(recorded.reduce((t, c) => t + c.rcu, 0));
        for (const c of recorded)
          byCommand[c.command.replace(/Command$/, '')] = (byCommand[c.command.replace(/Command$/, '')] ?? 0) + c.rcu / Q_CALLS;
      }
      for (const k of Object.keys(byCommand)) byCommand[k] = r2(byCommand[k]);
      lists.push({
        route: `conversations${query}${api === s.agent.api ? ' (agent)' : ''}`,
        matches: check.all_count,
        rcu: r2(rcu.reduce((a, b) => a + b, 0) / rcu.length),
        byCommand,
        p50: r2(pct50(ms)),
      });
    }
    const counterItems = (await listConversationCounters(s.accountId)).length;
    const head = await getSearchHead(s.accountId);
    recorder.take();
    // One message per conversation: what the segments and packs do not hold is in the tail.
    const inSegments = head.segments.reduce((t, x) => t + x.n, 0);
    const packed = head.packs.reduce((t, x) => t + x.n, 0);
    const sealed = inSegments + packed;
    const index = {
      segments: head.segments.length,
      packs: head.packs.length,
      packed,
      tail: made.length - sealed,
      wcuPerMessage: sealed ? r2(sealWcu / sealed) : 0,
    };
    rows.push({
      conversations: made.length,
      contacts: contactsMade + contactIds.length,
      counterItems,
      meta,
      q,
      qRare,
      qRoutes,
      lists,
      index,
      filters,
      loadSeconds,
    });
    log(
      `  ${made.length} conversations (loaded in ${loadSeconds} s): meta ${meta[0].rcu} RCU, p50 ${meta[0].p50} ms; meta?q ${q.rcu} RCU, p50 ${q.p50} ms; ` +
        `meta?q=${RARE} ${qRare.rcu} RCU (${qRare.matches} matches); index ${index.segments} segments (${head.segments.filter((x) => x.g).length} in gram partitions), ${index.packs} packs (${index.packed} messages), tail ${index.tail}, ${index.wcuPerMessage} WCU/message sealed; ` +
        qRoutes
          .map(
            (r) =>
              `${r.route} ${r.rcu} RCU (${Object.entries(r.byCommand)
                .map(([k, v]) => `${k} ${v}`)
                .join(' + ')}), p50 ${r.p50} ms`,
          )
          .join('; '),
    );
  }
  return { sizes, rows, note };
}

/** A table row of a route measured on an account of `conversations`: its matches, RCU by command, p50. */
function routeRow(
  conversations: number,
  q: { route: string; matches: number; rcu: number; p50: number; byCommand: Record<string, number> },
): string {
  const parts = Object.entries(q.byCommand)
    .map(([k, v]) => `${k} ${v}`)
    .join(' + ');
  return `| ${conversations.toLocaleString('en-US')} | \`${q.route}\` | ${q.matches.toLocaleString('en-US')} | ${q.rcu} (${parts}) | ${q.p50} |`;
}

export function countsMarkdown(r: CountsResult): string[] {
  const lines = ['## Counts scale', ''];
  lines.push(
    '`GET /api/v1/accounts/{account_id}/conversations/meta` (contract endpoint 4) on one account grown to each size (`bench/counts.ts`). The',
    'conversations are written in-process by the conversations service (`startConversation`, the code behind `POST /conversations`, with',
    `their counters), in parallel batches of ${BATCH}, over 3 inboxes, 4 statuses, a team and 2 assignees plus unassigned, in`,
    `${COMBINATIONS.length} (inbox, team, status, assignee) combinations that the first ${COMBINATIONS.length} conversations already use; each has one incoming or`,
    `outgoing message, one in seven mentioning "${TERM}". Every answer measured equals the counts expected from what was created (default,`,
    "`status=all`, an inbox, the agent's two inboxes, and `q` over every status). meta: " +
      `${CALLS} calls per variant after ${WARMUP} warm-up calls; \`q\`: ${Q_CALLS} calls.`,
    'RCU per call from `ReturnConsumedCapacity`; in brackets the counter or message Query and the BatchGets (the credential lookup is',
    'cached from the warm-up calls on, so no measured call reads it).',
    '',
    `| conversations | counter items | meta RCU | meta p50 ms | meta RCU with \`status=all\` / \`inbox_id\` / as agent | meta?q RCU | meta?q p50 ms | \`q\` matches | meta?q=${RARE} RCU (matches) | index segments / packs (messages) / tail messages / seal WCU per message |`,
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  const split = (v: CountsVariant) => `${v.rcu} (Query ${v.byCommand.Query ?? 0} + BatchGet ${v.byCommand.BatchGetItem ?? 0})`;
  for (const row of r.rows) {
    const [def, ...rest] = row.meta;
    lines.push(
      `| ${row.conversations.toLocaleString('en-US')} | ${row.counterItems} | ${split(def)} | ${def.p50} | ${rest.map((m) => m.rcu).join(' / ')} | ${split(row.q)} | ${row.q.p50} | ${row.q.matches.toLocaleString('en-US')} | ${split(row.qRare)} (${row.qRare.matches}) | ${row.index.segments} / ${row.index.packs} (${row.index.packed}) / ${row.index.tail} / ${row.index.wcuPerMessage} |`,
    );
  }
  if (r.note) lines.push('', r.note);
  const withRoutes = r.rows.filter((row) => row.qRoutes?.length);
  if (withRoutes.length) {
    lines.push(
      '',
      '### `q` on lists and search',
      '',
      `\`GET conversations?q=\`, \`GET conversations/search?q=\` and the global \`GET search/messages?q=\` on the same account, page 1, as administrator,`,
      `${Q_CALLS} calls after ${WARMUP} warm-up calls; every answer's counts are checked against what was created and its page holds min(25, matches)`,
      'conversations (min(15, matches) messages for `search/messages`, each a match). In brackets the RCU by command.',
      '',
      '| conversations | route | matching conversations | RCU | p50 ms |',
      '|---|---|---|---|---|',
    );
    for (const row of withRoutes) {
      for (const q of row.qRoutes!) lines.push(routeRow(row.conversations, q));
    }
  }
  const withLists = r.rows.filter((row) => row.lists?.length);
  if (withLists.length) {
    lines.push(
      '',
      '### List pages',
      '',
      '`GET conversations` page 1 without `q` on the same account (the agent sees two of the three inboxes), ' +
        `${Q_CALLS} calls after ${WARMUP} warm-up calls; every answer's counts are checked`,
      'against what was created and its page is full. In brackets the RCU by command: the counters and index Queries, then the BatchGets',
      "(the page's contacts; its conversations too when they came from an inbox's slim rows).",
      '',
      '| conversations | route | conversations in scope | RCU | p50 ms |',
      '|---|---|---|---|---|',
    );
    for (const row of withLists) {
      for (const q of row.lists!) lines.push(routeRow(row.conversations, q));
    }
  }
  const withFilters = r.rows.filter((row) => row.filters?.length);
  if (withFilters.length) {
    lines.push(
      '',
      '### Filter cost',
      '',
      `\`POST contacts/filter\` and \`POST conversations/filter\` on the same account, grown with as many listed contacts as conversations (WhatsApp-style`,
      `phone numbers, one in ten with the custom attribute \`plan\` = gold). ${FILTER_CALLS} calls each after ${WARMUP} warm-up calls, as administrator; every`,
      'answer is checked against what was created. In brackets the RCU by command: the listing or index Queries, then the BatchGets (full items',
      'of the candidates a projection leaves open, and the page).',
      '',
      '| conversations / contacts | filter | matches | RCU | p50 ms |',
      '|---|---|---|---|---|',
    );
    for (const row of withFilters) {
      for (const f of row.filters!) {
        const parts = Object.entries(f.byCommand)
          .map(([k, v]) => `${k} ${v}`)
          .join(' + ');
        lines.push(
          `| ${row.conversations.toLocaleString('en-US')} / ${(row.contacts ?? 0).toLocaleString('en-US')} | \`${f.route}\` ${f.label} | ${f.matches.toLocaleString('en-US')} | ${f.rcu} (${parts}) | ${f.p50} |`,
        );
      }
    }
  }
  lines.push(
    '',
    '**Cost model.** Without `q` or `labels`, meta of the whole account is one strongly consistent Query of its account counters (AP67,',
    'partition `CNTA#<account>`): one item of ~100 bytes per (team, status, assignee) combination in use (plus creation marks until settled),',
    "changed with every conversation change (docs/cost.md), so the counts are exact; an inbox or an agent's inboxes read those inboxes'",
    'counters (AP66, `CNT#<account>`, one item per (inbox, team, status, assignee), one Query per inbox). A Query costs ⌈size of the items',
    '/ 4 KB⌉ RCU, about one RCU per 30 combinations in use, whatever the number of conversations; the filters (status, inbox, team, the',
    "agent's inboxes) apply to those items in memory (an agent's inbox memberships come from the refs cache). With `q`, meta reads the account's `q` index",
    "(shared/search, docs/search.md): its head (AP73), the postings of a covering set of the term's trigrams in each sealed segment",
    '(hash-bucket items of ~3 KB or one item per common trigram, in one BatchGet with the packs, AP75) and the doc chunks of matches no bucket',
    'posting describes, the tail of messages not packed yet (slim items, AP72), then the assignee and team of the matching conversations (AP77,',
    '~5 bytes each). The index is sealed here after every batch of creates, in-process, by the rules the pipeline applies after',
    '`message_created` (a pack from 50 tail messages, a segment from 200 in packs and tail), the lag being the current second; the',
    'columns say what the segments, packs and tail held when measured. Seal WCU per message: the write units of packing, sealing and',
    'merging divided by the messages in segments and packs.',
  );
  return lines;
}
