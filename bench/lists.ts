import type { Client } from '../test/support/http.ts';
import { seedAccountVia } from '../test/support/http.ts';
import type { instrument } from './instrument.ts';

// List pages by the account's shape (`BENCH_PARTS=lists`): accounts of 1, 30 and 300 inboxes, each inbox holding open
// conversations (60 at least in all, a third the agent's, a quarter a team's; five contacts), the agent a member of
// three inboxes; then one of the agent's inboxes gets a full page more (BUSY), the shape where a page's conversations
// were read by key (0.5 RCU each) before the inbox index held whole conversations. Page 1 of the lists agents open
// all day, in each of Chatwoot's orders, and of n8n's status filter, through HTTP:
// read units and DynamoDB calls per call, every answer's counts checked against what was created. What the page
// reads by inbox count (test/integration/conversation-pages.test.ts asserts the items and round trips).

const SIZES = (process.env.BENCH_LISTS_INBOXES ?? '1,30,300')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const CALLS = 10;
/** Open conversations added to one inbox for the rows of an inbox holding a full page. */
const BUSY = 40;
const WARMUP = 2;
/** Orders other than the default (newest activity first) measured on each shape. */
const SORTS = (process.env.BENCH_LISTS_SORTS ?? 'last_activity_at_asc,created_at_desc,priority_desc,waiting_since_asc')
  .split(',')
  .filter(Boolean);

export interface ListsRow {
  inboxes: number;
  conversations: number;
  route: string;
  rcu: number;
  calls: number;
  p50: number;
}

/** A measured call: its name, client, method, path, body, the count its answer carries and what that count must be. */
type Variant = [string, Client, 'GET' | 'POST', string, unknown, (b: any) => number, number];

export interface ListsResult {
  rows: ListsRow[];
}

const r2 = (n: number) => Math.round(n * 100) / 100;
const pct50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length / 2) - 1];

async function inParallel<T>(n: number, width: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i += width) out.push(...(await Promise.all(Array.from({ length: Math.min(width, n - i) }, (_, j) => fn(i + j)))));
  return out;
}

export async function benchLists(opts: {
  baseUrl: string;
  platform: Client;
  recorder: ReturnType<typeof instrument>;
  log: (line: string) => void;
}): Promise<ListsResult> {
  const rows: ListsRow[] = [];
  const measureVariants = async (base: string, n: number, conversations: number, variants: Variant[]) => {
    for (const [route, api, method, path, body, count, want] of variants) {
      const rcu: number[] = [];
      const ms: number[] = [];
      let calls = 0;
      for (let i = 0; i < WARMUP + CALLS; i++) {
        opts.recorder.take();
        const started = performance.now();
        const res = method === 'GET' ? await api.get(`${base}${path}`) : await api.post(`${base}${path}`, body);
        const took = performance.now() - started;
        const recorded = opts.recorder.take().calls;
        if (res.status !== 200) throw new Error(`lists ${route} at ${n} inboxes answered ${res.status}: ${res.text.slice(0, 200)}`);
        if (count(res.body) !== want) throw new Error(`lists ${route} at ${n} inboxes counted ${count(res.body)}, expected ${want}`);
        if (i < WARMUP) continue;
        ms.push(took);
        rcu.push(recorded.reduce((t, c) => t + c.rcu, 0));
        calls = recorded.length;
      }
      rows.push({
        inboxes: n,
        conversations,
        route,
        rcu: r2(rcu.reduce((a, b) => a + b, 0) / rcu.length),
        calls,
        p50: r2(pct50(ms)),
      });
    }
  };
  /** The orders other than the default one (Chatwoot's sort options), over a scope of `count` open conversations. */
  const sorted = (api: Client, filter: string, count: number, what = ''): Variant[] =>
    SORTS.map((sort) => [
      `conversations?${filter ? `inbox_id=${what}&` : ''}sort_by=${sort}`,
      api,
      'GET',
      `/conversations?${filter}sort_by=${sort}`,
      undefined,
      (b) => b.data.meta.all_count,
      count,
    ]);
  for (const n of SIZES) {
    const s = await seedAccountVia(opts.baseUrl, opts.platform, `Lists ${n}`);
    const ok = async (res: Promise<{ status: number; text: string; body: any }>, what: string) => {
      const r = await res;
      if (r.status !== 200) throw new Error(`lists setup ${what}: ${r.status} ${r.text.slice(0, 200)}`);
      return r.body;
    };
    const inboxes: number[] = await inParallel(
      n,
      10,
      async (i) => (await ok(s.admin.api.post(`${s.base}/inboxes`, { name: `Number ${i}`, channel: { type: 'api' } }), 'inbox')).id,
    );
    const contacts: number[] = await inParallel(
      5,
      5,
      async (i) =>
        (
          await ok(
            s.admin.api.post(`${s.base}/contacts`, { name: `Lead ${i}`, email: `lists-${n}-${i}-${Date.now()}@bench.example` }),
            'contact',
          )
        ).payload.contact.id,
    );
    const team: number = (await ok(s.admin.api.post(`${s.base}/teams`, { name: `lists-${n}-${Date.now()}` }), 'team')).id;
    const agentInboxes = inboxes.slice(0, 3);
    for (const id of agentInboxes)
      await ok(s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: id, user_ids: [s.agent.id] }), 'member');
    const open = Math.max(60, n);
    const made = await inParallel(open, 10, async (i) => {
      const row = { inbox: inboxes[i % n], agent: i % 3 === 0, team: i % 4 === 0 };
      await ok(
        s.admin.api.post(`${s.base}/conversations`, {
          inbox_id: row.inbox,
          contact_id: contacts[i % contacts.length],
          ...(row.agent ? { assignee_id: s.agent.id } : {}),
          ...(row.team ? { team_id: team } : {}),
        }),
        'conversation',
      );
      return row;
    });
    const mineOfAgent = made.filter((m) => m.agent && agentInboxes.includes(m.inbox)).length;
    const variants: Variant[] = [
      ['conversations (administrator)', s.admin.api, 'GET', '/conversations', undefined, (b) => b.data.meta.all_count, open],
      [
        'conversations?inbox_id=<one inbox>',
        s.admin.api,
        'GET',
        `/conversations?inbox_id=${inboxes[0]}`,
        undefined,
        (b) => b.data.meta.all_count,
        made.filter((m) => m.inbox === inboxes[0]).length,
      ],
      [
        'conversations?assignee_type=me (agent of 3 inboxes)',
        s.agent.api,
        'GET',
        '/conversations?assignee_type=me',
        undefined,
        (b) => b.data.meta.mine_count,
        mineOfAgent,
      ],
      [
        `conversations?team_id=<team>`,
        s.admin.api,
        'GET',
        `/conversations?team_id=${team}`,
        undefined,
        (b) => b.data.meta.all_count,
        made.filter((m) => m.team).length,
      ],
      [
        `conversations?team_id=<team>&sort_by=created_at_desc`,
        s.admin.api,
        'GET',
        `/conversations?team_id=${team}&sort_by=created_at_desc`,
        undefined,
        (b) => b.data.meta.all_count,
        made.filter((m) => m.team).length,
      ],
      [
        'conversations/filter status = open (n8n)',
        s.admin.api,
        'POST',
        '/conversations/filter',
        { payload: [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'] }] },
        (b) => b.meta.all_count,
        open,
      ],
      ...sorted(s.admin.api, '', open),
    ];
    await measureVariants(s.base, n, open, variants);
    // One inbox that holds a full page among many (the page's conversations are no longer a few): BUSY more open
    // conversations in the agent's first inbox, a third of them assigned to the agent.
    const busy = await inParallel(BUSY, 10, async (i) => {
      const row = { inbox: inboxes[0], agent: i % 3 === 0, team: false };
      await ok(
        s.admin.api.post(`${s.base}/conversations`, {
          inbox_id: row.inbox,
          contact_id: contacts[i % contacts.length],
          ...(row.agent ? { assignee_id: s.agent.id } : {}),
        }),
        'conversation',
      );
      return row;
    });
    const all = [...made, ...busy];
    const ofAgent = all.filter((m) => agentInboxes.includes(m.inbox));
    await measureVariants(s.base, n, open + BUSY, [
      [
        `conversations?inbox_id=<inbox holding ${BUSY} more>`,
        s.admin.api,
        'GET',
        `/conversations?inbox_id=${inboxes[0]}`,
        undefined,
        (b) => b.data.meta.all_count,
        all.filter((m) => m.inbox === inboxes[0]).length,
      ],
      [
        'conversations?assignee_type=all (agent of 3 inboxes, one busy)',
        s.agent.api,
        'GET',
        '/conversations?assignee_type=all',
        undefined,
        (b) => b.data.meta.all_count,
        ofAgent.length,
      ],
      ...sorted(s.admin.api, `inbox_id=${inboxes[0]}&`, all.filter((m) => m.inbox === inboxes[0]).length, `<inbox holding ${BUSY} more>`),
      [
        'conversations?assignee_type=me (agent of 3 inboxes, one busy)',
        s.agent.api,
        'GET',
        '/conversations?assignee_type=me',
        undefined,
        (b) => b.data.meta.mine_count,
        ofAgent.filter((m) => m.agent).length,
      ],
    ]);
    opts.log(
      `  ${n} inboxes: ${rows
        .filter((r) => r.inboxes === n)
        .map((r) => `${r.route} ${r.rcu} RCU in ${r.calls} calls`)
        .join('; ')}`,
    );
  }
  return { rows };
}

export function listsMarkdown(r: ListsResult): string[] {
  if (!r.rows?.length) return [];
  const lines = [
    '## List pages by inboxes',
    '',
    "Page 1 of the conversation list and of n8n's status filter on accounts of 1, 30 and 300 inboxes (`bench/lists.ts`): each inbox holds",
    'open conversations (60 at least in all, a third assigned to the agent, a quarter to a team, over five contacts); the agent is a member',
    `of three inboxes; then ${BUSY} more open conversations in the agent's first inbox (a third the agent's), so that one inbox of many`,
    `holds a full page. Chatwoot's other orders (\`sort_by\`: ${SORTS.join(', ')}) of the whole account and of that inbox, and the team's page newest created first.`,
    `${CALLS} calls each after ${WARMUP} warm-up calls (credentials and refs cached, as in a busy container); every answer's`,
    'counts are checked against what was created. DynamoDB calls per call, none of them one per inbox.',
    '',
    '| inboxes | conversations | route | RCU | DynamoDB calls | p50 ms |',
    '|---|---|---|---|---|---|',
  ];
  for (const row of r.rows)
    lines.push(`| ${row.inboxes} | ${row.conversations} | \`${row.route}\` | ${row.rcu} | ${row.calls} | ${row.p50} |`);
  return lines;
}
