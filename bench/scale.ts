import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import type { Runtime } from '../infra/local/runtime.ts';
import { client, seedAccountVia, type Client } from '../test/support/http.ts';
import { COMBINATIONS, expected, type Combination, type Counts } from './counts.ts';
import { roundTrips, type instrument } from './instrument.ts';

// Scale (`BENCH_PARTS=scale`, opt-in): `q` search at about a million messages and the conversation list pages at
// 100,000 conversations, on one account loaded straight into DynamoDB Local by the code the API and the pipeline
// write with: the conversation's and each message's records from the domain's builders (newConversationRecord,
// buildMessage, messageEffects, withMessage), their items and counter and state updates from the repository
// (newConversationWrites: what insertConversation writes), put by BatchWrite with the
// counter updates of a combination summed, contacts by the contacts service, and the `q` index sealed by the
// pipeline's own sealer (sealSearchIndex) every SEAL_STEP messages, so that packs, segments, merges and gram
// partitions are what the pipeline leaves. Message times are spread over the SPAN_S before the load began, so
// that the sealer's seconds advance as they would. The data stays in BENCH_SCALE_DIR (DynamoDB Local on disk), or in
// the DynamoDB Local kept running that BENCH_SCALE_DYNAMODB names (bench/scale-dynamodb.ts); a later run resumes the load where it stopped (BENCH_SCALE_LOAD_S a run) or, once it is complete, only
// measures. Left out: the contacts' last activity (startConversation touches it on an incoming first message; the
// contact lists sort by it, the measured routes do not read it) and the pipeline's own writes (reports, notifications).

const CONVERSATIONS = Number(process.env.BENCH_SCALE_CONVERSATIONS ?? 100_000);
const MESSAGES = Number(process.env.BENCH_SCALE_MESSAGES ?? 10);
const TOTAL = CONVERSATIONS * MESSAGES;
/** Seconds one run may spend loading; what is left loads on the next run. */
const LOAD_BUDGET_S = Number(process.env.BENCH_SCALE_LOAD_S ?? 600);
export const SCALE_DIR = process.env.BENCH_SCALE_DIR ?? '/tmp/chatwoot-bench-scale';
/** Conversations built and written together (with CHUNK / CONTACT_EVERY new contacts). */
const CHUNK = 1000;
/** One contact per this many conversations; a page's consecutive conversations have distinct contacts. */
const CONTACT_EVERY = 10;
/**
 * The sealer runs after this many messages: the pipeline's, once a minute, sees a pack's worth (PACK_MIN) of messages
 * past its lag every ~10 minutes at the load's pace (~5 messages a minute over 30 days for 200,000): a pack from 50,
 * the packs and tail become a segment at 200, merged by ratio.
 */
const SEAL_STEP = 50;
/** Message times cover the 30 days before the load. */
const SPAN_S = 30 * 86_400;
const WRITE_LANES = 8;
const CALLS = 5;
const WARMUP = 2;
/** The first message of one conversation in seven mentions it. */
const COMMON = 'refund';
/** Four messages of the whole load mention it (spread over it: one every quarter). */
const RARE = 'parcel';
const isCommon = (i: number, k: number) => k === 0 && i % 7 === 0;
const isRare = (g: number) => g % Math.max(2, Math.floor(TOTAL / 4)) === 1;

const r2 = (n: number) => Math.round(n * 100) / 100;
const pct50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length / 2) - 1];

interface State {
  accountId: number;
  admin: { id: number; token: string };
  agent: { id: number; token: string };
  inboxIds: number[];
  teamId: number;
  /** Message times: message g (conversation ⌊g / MESSAGES⌋) at t0 + ⌊g · SPAN_S / (CONVERSATIONS · MESSAGES)⌋. */
  t0: number;
  conversations: number;
  messages: number;
  /** Conversations written, contacts made. */
  loaded: number;
  contacts: number;
  /** The next message after which the sealer runs. */
  sealAt: number;
  loadSeconds: number;
  sealSeconds: number;
}

export interface ScaleRoute {
  route: string;
  matches: number;
  rcu: number;
  byCommand: Record<string, number>;
  /** DynamoDB calls and sequential round trips per call. */
  calls: number;
  rounds: number;
  p50: number;
}

export interface ScaleResult {
  conversations: number;
  messages: number;
  contacts: number;
  /** The load asked for; `conversations` is less when the load is not complete yet. */
  planned: { conversations: number; messages: number };
  loadSeconds: number;
  sealSeconds: number;
  /** Where DynamoDB Local kept the data: in memory (a process kept running, BENCH_SCALE_DYNAMODB) or on disk. */
  store?: 'memory' | 'disk';
  index: { segments: { n: number; gram: number | null }[]; packs: number; packed: number; tail: number };
  search: ScaleRoute[];
  lists: ScaleRoute[];
}

type Recorder = ReturnType<typeof instrument>;

function contentOf(i: number, k: number, g: number): string {
  if (isCommon(i, k)) return `Customer ${i} asks for a ${i % 2 ? 'Refund' : 'REFUND'} of order ${i}`;
  if (isRare(g)) return `Customer ${i} reports a damaged Parcel`;
  return k % 2 === 0 ? `Customer ${i} asks where order ${i}-${k} is` : `Order ${i}-${k} ships on day ${k}, tracking ${g}`;
}

export async function measureScale(opts: {
  baseUrl: string;
  platform: Client;
  recorder: Recorder;
  pipeline: Runtime['pipeline'];
  log: (line: string) => void;
}): Promise<ScaleResult> {
  const { recorder, log } = opts;
  await opts.pipeline.pause();
  const { getAccount, getUser } = await import('#shared/db/repositories/identity.ts');
  const { getInbox } = await import('#shared/db/repositories/inboxes.ts');
  const { createContact } = await import('#shared/domain/contacts/service.ts');
  const { newConversationRecord } = await import('#shared/domain/conversations/service.ts');
  const { buildMessage, messageEffects } = await import('#shared/domain/messages/build.ts');
  const { withMessage } = await import('#shared/domain/conversations/mutation.ts');
  const { NewMessageSchema } = await import('#shared/domain/messages/schemas.ts');
  const { newConversationWrites, nextDisplayIds } = await import('#shared/db/repositories/conversations.ts');
  const { nextDenseIds } = await import('#shared/db/ids.ts');
  const { batchWriteAll } = await import('#shared/db/repositories/common.ts');
  const { db, tableName } = await import('#shared/db/client.ts');
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  const { sealSearchIndex, SEAL_LAG_S } = await import('#shared/search/index.ts');
  const { getSearchHead } = await import('#shared/db/repositories/search-index.ts');

  const file = join(SCALE_DIR, 'scale.json');
  let state: State;
  if (existsSync(file)) {
    state = JSON.parse(readFileSync(file, 'utf8')) as State;
    if (state.conversations !== CONVERSATIONS || state.messages !== MESSAGES)
      throw new Error(
        `${SCALE_DIR} holds a load of ${state.conversations} conversations × ${state.messages} messages; remove it to load another size`,
      );
  } else {
    const s = await seedAccountVia(opts.baseUrl, opts.platform, 'Scale');
    const ok = async (res: Promise<{ status: number; text: string; body: any }>, what: string) => {
      const r = await res;
      if (r.status !== 200) throw new Error(`scale setup ${what}: ${r.status} ${r.text.slice(0, 200)}`);
      return r.body;
    };
    const inboxIds: number[] = [];
    for (let i = 0; i < 3; i++)
      inboxIds.push((await ok(s.admin.api.post(`${s.base}/inboxes`, { name: `Scale ${i}`, channel: { type: 'api' } }), 'inbox')).id);
    // The agent sees inboxes 0 and 1.
    for (const id of inboxIds.slice(0, 2))
      await ok(s.admin.api.post(`${s.base}/inbox_members`, { inbox_id: id, user_ids: [s.agent.id] }), 'members');
    const teamId: number = (await ok(s.admin.api.post(`${s.base}/teams`, { name: `scale-${Date.now()}` }), 'team')).id;
    state = {
      accountId: s.accountId,
      admin: { id: s.admin.id, token: s.admin.token },
      agent: { id: s.agent.id, token: s.agent.token },
      inboxIds,
      teamId,
      t0: Math.floor(Date.now() / 1000) - SPAN_S - 3600,
      conversations: CONVERSATIONS,
      messages: MESSAGES,
      loaded: 0,
      contacts: 0,
      sealAt: SEAL_STEP,
      loadSeconds: 0,
      sealSeconds: 0,
    };
    writeFileSync(file, JSON.stringify(state));
  }
  const admin = client(opts.baseUrl, state.admin.token);
  const agent = client(opts.baseUrl, state.agent.token);
  const base = `/api/v1/accounts/${state.accountId}`;
  const accountId = state.accountId;
  const totalMessages = TOTAL;
  const timeOf = (g: number) => state.t0 + Math.floor((g * SPAN_S) / totalMessages);

  // The pipeline's sealer, as it runs after the messages written: every SEAL_STEP messages, the tail older than its
  // lag becomes packs and segments (merged by ratio, large ones in the gram partitions).
  async function sealUpToLoaded() {
    const started = performance.now();
    await recorder.unrecorded(async () => {
      while (state.sealAt < state.loaded * MESSAGES) {
        await sealSearchIndex(accountId, { now: timeOf(state.sealAt) + SEAL_LAG_S });
        state.sealAt += SEAL_STEP;
      }
    });
    state.sealSeconds = r2(state.sealSeconds + (performance.now() - started) / 1000);
    writeFileSync(file, JSON.stringify(state));
  }

  // ── load ──
  if (state.loaded < CONVERSATIONS) {
    const account = (await getAccount(accountId))!;
    const actor = { type: 'user' as const, user: (await getUser(state.admin.id))!, role: 'administrator' as const };
    const inboxes = await Promise.all(state.inboxIds.map(async (id) => (await getInbox(accountId, id))!));
    const userOf = (c: Combination) => (c.assignee === 'admin' ? state.admin.id : c.assignee === 'agent' ? state.agent.id : null);
    const started = performance.now();
    await recorder.unrecorded(async () => {
      while (state.loaded < CONVERSATIONS && (performance.now() - started) / 1000 < LOAD_BUDGET_S) {
        const t = performance.now();
        const from = state.loaded;
        const n = Math.min(CHUNK, CONVERSATIONS - from);
        // The chunk's contacts, each on the one inbox its conversations use (conversation i: contact i mod the chunk's).
        const perChunk = Math.ceil(n / CONTACT_EVERY);
        const targets = await pool(perChunk, 16, async (j) => {
          const inbox = inboxes[COMBINATIONS[(from + j) % COMBINATIONS.length].inbox];
          const { contact, contactInbox } = await createContact(
            accountId,
            { name: `Customer ${state.contacts + j}`, phone_number: `+55119${String(state.contacts + j).padStart(8, '0')}` },
            inbox,
          );
          return { inbox, contact, contactInbox: contactInbox! };
        });
        state.contacts += perChunk;
        const firstId = await nextDisplayIds(accountId, n);
        let messageId = await nextDenseIds('message', n * MESSAGES);
        const puts: Record<string, unknown>[] = [];
        const counters = new Map<string, { update: Record<string, any>; d: number }>();
        const states: Record<string, any>[] = [];
        for (let x = 0; x < n; x++) {
          const i = from + x;
          const combo = COMBINATIONS[i % COMBINATIONS.length];
          const target = targets[x % perChunk];
          if (target.inbox.id !== state.inboxIds[combo.inbox]) throw new Error(`conversation ${i}: contact on the wrong inbox`);
          let conversation = newConversationRecord(
            account,
            actor,
            target,
            { status: combo.status },
            { id: firstId + x, assignee_id: userOf(combo), team_id: combo.team ? state.teamId : null, at: timeOf(i * MESSAGES) },
          );
          const messages = [];
          for (let k = 0; k < MESSAGES; k++) {
            const g = i * MESSAGES + k;
            // An incoming message reopens a conversation: only open ones get incoming messages.
            const input = v.parse(NewMessageSchema, {
              content: contentOf(i, k, g),
              message_type: combo.status === 'open' && k % 2 === 0 ? 'incoming' : 'outgoing',
            });
            const built = await buildMessage({ account, inbox: target.inbox, conversation }, actor, input, { id: messageId++ });
            const m = { ...built, created_at: timeOf(g), updated_at: timeOf(g) };
            conversation = withMessage({ ...conversation, ...messageEffects(conversation, m, target.inbox, false) }, m);
            messages.push(m);
          }
          if (conversation.status !== combo.status) throw new Error(`conversation ${i} is not in its combination`);
          const w = newConversationWrites(conversation, messages);
          puts.push(...w.puts);
          for (const { item } of w.updates) {
            const u = item.Update as Record<string, any>;
            if (!u.UpdateExpression.startsWith('ADD #n :d')) {
              states.push(u);
              continue;
            }
            // A counter: the chunk's updates of one combination become one, their deltas summed.
            const key = JSON.stringify(u.Key);
            const seen = counters.get(key);
            if (seen) seen.d += u.ExpressionAttributeValues[':d'];
            else counters.set(key, { update: u, d: u.ExpressionAttributeValues[':d'] });
          }
        }
        await pool(Math.ceil(puts.length / 250), WRITE_LANES, (p) =>
          batchWriteAll(puts.slice(p * 250, (p + 1) * 250).map((Item) => ({ PutRequest: { Item } }))),
        );
        const send = (u: Record<string, any>) => db().send(new UpdateCommand({ ...u, TableName: tableName() } as never));
        const summed = [...counters.values()];
        await pool(summed.length, WRITE_LANES, (p) => {
          const { update, d } = summed[p];
          return send({ ...update, ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':d': d } });
        });
        await pool(states.length, WRITE_LANES, (p) => send(states[p]));
        state.loaded += n;
        state.loadSeconds = r2(state.loadSeconds + (performance.now() - t) / 1000);
        await sealUpToLoaded();
        if (state.loaded % 10_000 === 0 || state.loaded === CONVERSATIONS)
          log(
            `  scale: ${state.loaded} conversations, ${state.loaded * MESSAGES} messages (writing ${state.loadSeconds} s, sealing ${state.sealSeconds} s)`,
          );
      }
    });
  }

  // A load stopped between its writes and their sealing (or sealed by an older step) is sealed first.
  await sealUpToLoaded();

  // ── measure ──
  const made = Array.from({ length: state.loaded }, (_, i) => ({
    ...COMBINATIONS[i % COMBINATIONS.length],
    common: Array.from({ length: MESSAGES }, (_, k) => isCommon(i, k)).some(Boolean),
    rare: Array.from({ length: MESSAGES }, (_, k) => isRare(i * MESSAGES + k)).some(Boolean),
  }));
  const head = await getSearchHead(accountId);
  const segments = head.segments.map((s) => ({ n: s.n, gram: s.g ?? null }));
  const packed = head.packs.reduce((t, p) => t + p.n, 0);
  const tail = state.loaded * MESSAGES - segments.reduce((t, s) => t + s.n, 0) - packed;
  log(
    `  scale: ${state.loaded} conversations; index ${segments.map((s) => `${s.n}${s.gram ? `/g${s.gram}` : ''}`).join(', ')}, ${head.packs.length} packs (${packed}), tail ${tail}`,
  );

  async function measure(api: Client, path: string, matches: number, check: (body: any) => string | undefined): Promise<ScaleRoute> {
    const rcu: number[] = [];
    const ms: number[] = [];
    const byCommand: Record<string, number> = {};
    let calls = 0;
    let rounds = 0;
    for (let i = 0; i < WARMUP + CALLS; i++) {
      recorder.take();
      const started = performance.now();
      const res = await api.get(`${base}/${path}`);
      const took = performance.now() - started;
      const recorded = recorder.take().calls;
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${res.text.slice(0, 200)}`);
      const wrong = check(res.body);
      if (wrong) throw new Error(`${path} at ${state.loaded} conversations: ${wrong}`);
      if (i < WARMUP) continue;
      ms.push(took);
      rcu.push(recorded.reduce((t, c) => t + c.rcu, 0));
      calls += recorded.length / CALLS;
      rounds += roundTrips(recorded) / CALLS;
      for (const c of recorded) {
        const name = c.command.replace(/Command$/, '');
        byCommand[name] = (byCommand[name] ?? 0) + c.rcu / CALLS;
      }
      if (process.env.BENCH_DEBUG && i === WARMUP)
        log(`    ${path}:\n${recorded.map((c) => `      ${c.command} ${c.rcu} ${String(c.body).slice(0, 300)}`).join('\n')}`);
    }
    for (const k of Object.keys(byCommand)) byCommand[k] = r2(byCommand[k]);
    const out = {
      route: path,
      matches,
      rcu: r2(rcu.reduce((a, b) => a + b, 0) / CALLS),
      byCommand,
      calls: r2(calls),
      rounds: r2(rounds),
      p50: r2(pct50(ms)),
    };
    log(`  ${path}: ${out.rcu} RCU, ${out.calls} calls in ${out.rounds} round trips, p50 ${out.p50} ms`);
    return out;
  }
  const countsWrong = (got: Counts, want: Counts) =>
    (Object.keys(want) as (keyof Counts)[]).some((k) => got[k] !== want[k])
      ? `${JSON.stringify(got)}, expected ${JSON.stringify(want)}`
      : undefined;

  const search: ScaleRoute[] = [];
  for (const [term, has] of [
    [RARE, (c: (typeof made)[number]) => c.rare],
    [COMMON, (c: (typeof made)[number]) => c.common],
  ] as const) {
    const want = expected(made, has, 'admin');
    const matches = want.all_count;
    const holds = (content: unknown) => String(content).toLowerCase().includes(term);
    search.push(await measure(admin, `conversations/meta?q=${term}`, matches, (b) => countsWrong(b.meta, want)));
    search.push(
      await measure(admin, `conversations?q=${term}`, matches, (b) => {
        const wrong = countsWrong(b.data.meta, want);
        if (wrong) return wrong;
        if (b.data.payload.length !== Math.min(25, matches)) return `${b.data.payload.length} conversations on page 1`;
      }),
    );
    search.push(
      await measure(admin, `search/messages?q=${term}`, matches, (b) => {
        const { messages, meta } = b.payload;
        if (meta.total_count !== matches || messages.length !== Math.min(15, matches) || !messages.every((m: any) => holds(m.content)))
          return `${JSON.stringify(meta)} with ${messages.length} messages, expected ${matches}`;
      }),
    );
  }
  const open = (c: Combination) => c.status === 'open';
  const lists: ScaleRoute[] = [];
  for (const [query, api, want, shown] of [
    ['', admin, expected(made, open, 'admin'), 'all_count'],
    ['?status=all', admin, expected(made, () => true, 'admin'), 'all_count'],
    [`?inbox_id=${state.inboxIds[0]}`, admin, expected(made, (c) => open(c) && c.inbox === 0, 'admin'), 'all_count'],
    ['?assignee_type=me', agent, expected(made, (c) => open(c) && c.inbox !== 2, 'agent'), 'mine_count'],
  ] as const) {
    const row = await measure(api, `conversations${query}`, want.all_count, (b) => {
      const wrong = countsWrong(b.data.meta, want);
      if (wrong) return wrong;
      if (b.data.payload.length !== Math.min(25, want[shown])) return `${b.data.payload.length} conversations on page 1`;
    });
    lists.push({ ...row, route: `${row.route}${api === agent ? ' (agent)' : ''}` });
  }
  return {
    conversations: state.loaded,
    messages: state.loaded * MESSAGES,
    contacts: state.contacts,
    planned: { conversations: CONVERSATIONS, messages: totalMessages },
    loadSeconds: state.loadSeconds,
    sealSeconds: state.sealSeconds,
    store: process.env.BENCH_SCALE_DYNAMODB ? 'memory' : 'disk',
    index: { segments, packs: head.packs.length, packed, tail },
    search,
    lists,
  };
}

/** Runs `work(0 … n-1)` at most `lanes` at a time; the results in order. */
async function pool<T>(n: number, lanes: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(lanes, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await work(i);
      }
    }),
  );
  return out;
}

const fmt = (n: number) => n.toLocaleString('en-US');

export function scaleMarkdown(r: ScaleResult): string[] {
  const lines = ['<!-- scale:start -->', '## Scale', ''];
  const partial = r.conversations < r.planned.conversations;
  lines.push(
    `\`BENCH_PARTS=scale npm run bench\` (\`bench/scale.ts\`, opt-in): one account of **${fmt(r.conversations)} conversations and ${fmt(r.messages)} messages**` +
      (partial ? ` (of ${fmt(r.planned.conversations)} planned: the load resumes on the next run)` : '') +
      ` and ${fmt(r.contacts)} contacts, loaded straight into DynamoDB Local (${r.store === 'memory' ? 'in memory, a process kept running between runs' : 'on disk'}) by the domain's record builders and the`,
    "repository's writes for a new conversation (`newConversationWrites`: the items and counter and state updates `insertConversation` makes), batched,",
    `with the pipeline's sealer run every ${SEAL_STEP} messages (message times spread over the 30 days before the load), in ${r.loadSeconds} s of writes`,
    `and ${r.sealSeconds} s of sealing on this machine. Over 3 inboxes, 4 statuses, a team and 2 assignees (the counts part's 10 combinations); ${r.messages / r.conversations} messages a`,
    `conversation (incoming and outgoing), "${COMMON}" in the first of one conversation in seven, "${RARE}" in four messages of the whole load. Index: ` +
      `${r.index.segments.length} segments of ${r.index.segments.map((s) => `${fmt(s.n)}${s.gram ? ` (gram partitions, ${s.gram})` : ''}`).join(', ')} messages, ` +
      `${r.index.packs} packs (${fmt(r.index.packed)} messages), ${fmt(r.index.tail)} in the tail.`,
    `${CALLS} calls each after ${WARMUP} warm-up calls, as administrator (the agent for \`assignee_type=me\`: two of the three inboxes); every answer's counts`,
    'and page are checked against what was loaded. Calls: DynamoDB calls per request; round trips: those one after another.',
    `A list page's 25 conversations have 25 different contacts here (one per ${CONTACT_EVERY} conversations, neighbours on different`,
    "ones), read by BatchGet at 0.5 RCU each (12.5 of a page's units; the counts and lists parts' accounts have five contacts).",
    'DynamoDB Local bills a Query that finds nothing 0 RCU, AWS at least 0.5 (docs/search.md#gram-partitions says which calls do).',
    '',
    '| route | matching / in scope | RCU (by command) | DynamoDB calls | round trips | p50 ms |',
    '|---|---|---|---|---|---|',
  );
  for (const x of [...r.search, ...r.lists]) {
    const parts = Object.entries(x.byCommand)
      .map(([k, n]) => `${k} ${n}`)
      .join(' + ');
    lines.push(`| \`${x.route}\` | ${fmt(x.matches)} | ${x.rcu} (${parts}) | ${x.calls} | ${x.rounds} | ${x.p50} |`);
  }
  lines.push('<!-- scale:end -->');
  return lines;
}
