import {
  byActivityAsc,
  byActivityDesc,
  conversationsByAccountStatus,
  conversationsByInboxStatus,
  getConversations,
  isWhole,
  mergeNewestFirst,
  type ConversationRow,
} from '#shared/db/repositories/conversations.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { ContactRecord } from '#shared/model/contacts.ts';
import { getContacts } from '#shared/db/repositories/contacts.ts';
import { listAccountCounters, listConversationCounters, listInboxCounters } from '#shared/db/repositories/counts.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { type AccountListPart, LIST_SHARDS } from '#shared/db/keys.ts';

// A page of conversations in the default order (newest activity first) whose reads do not grow with the
// account's inboxes or conversations (docs/data-model.md#reads-that-grow-with-the-data). The counters (AP66, AP67),
// read anyway for the counts, say exactly how many conversations each (inbox, team, status, assignee)
// combination holds and how many of them the page's filter wants; from them the page picks the cheaper of two
// sources of whole conversations and sizes its first read so that one round trip usually fills the page:
// - the account-wide index (AP62, gsi4): conversations of a status, one Query per partition holding wanted ones (a
//   team's own partition, or the two shards of those without a team), filtered in memory: about `need × all / wanted`
//   items of ~1 KB, where `all` counts the partitions read (a team's page reads only its team's conversations);
// - the inbox indexes (AP63, gsi3w): each (inbox, status) partition holding wanted conversations, merged:
//   cheaper when the filter wants a small share of the account (one inbox of many, an agent's few inboxes).
// Either way the page needs no further read of its conversations.

export const PAGE_SIZE = 25;

/**
 * What a counter and an index row both know of a conversation: enough to say whether a page wants it. An
 * account counter (AP67) has no inbox: it sums the combination over every inbox.
 */
export interface Combination {
  inbox_id?: number;
  team_id: number | null;
  status: string;
  assignee_id: number | null;
}

export type PageCounter = Combination & { count: number };

/** Inbox counters (AP66) of a few inboxes are read one Query each; more than this, the whole partition. */
const FEW_INBOXES = 20;

/**
 * The counters a page and its counts read, and how many conversations each status, and each (status, team), holds in
 * the whole account (what sizing a read of the account-wide index needs; unknown when only some inboxes' counters were
 * read from an account without account counters). `teamParts`: every conversation with a team is in its team's
 * partition of the account index (`team_list_partitions`), none in the shards.
 */
export interface PageCounters {
  counters: PageCounter[];
  totals?: Map<string, number>;
  teamParts?: boolean;
}

/** The key of `totals` for a status's partition of the account index holding a team's conversations (`null`: the shards). */
const partTotal = (status: string, team: number | null) => `${status}#${team ?? ''}`;

const totalsOf = (counters: PageCounter[]) => {
  const out = new Map<string, number>();
  const add = (k: string, n: number) => out.set(k, (out.get(k) ?? 0) + n);
  for (const c of counters)
    if (c.count > 0) {
      add(c.status, c.count);
      add(partTotal(c.status, c.team_id), c.count);
    }
  return out;
};

/**
 * What the counters are read for: `counts` only; a `page` (its source is sized by the account's totals); `rows` of
 * every (inbox, status) partition in scope (other orders, filters judged row by row): the inbox counters.
 */
export type CountersUse = 'counts' | 'page' | 'rows';

/**
 * The account counters when the whole account is in scope and they are complete (`account_counters`), so their
 * cost follows the (team, status, assignee) combinations in use, not the inboxes; the inbox counters of a few
 * inboxes in scope (one Query each, and for a page the account counters beside them, for the totals); else every
 * inbox counter.
 */
export async function countersFor(account: AccountRecord, inboxes: 'all' | Set<number>, use: CountersUse = 'page'): Promise<PageCounters> {
  const teamParts = !!account.team_list_partitions;
  if (inboxes === 'all' && account.account_counters && use !== 'rows') {
    const counters = await listAccountCounters(account.id);
    return { counters, totals: totalsOf(counters), teamParts };
  }
  if (inboxes !== 'all' && inboxes.size <= FEW_INBOXES) {
    const [counters, overall] = await Promise.all([
      listInboxCounters(account.id, [...inboxes]),
      account.account_counters && use === 'page' ? listAccountCounters(account.id) : undefined,
    ]);
    return { counters, totals: overall && totalsOf(overall), teamParts };
  }
  const counters = await listConversationCounters(account.id);
  // Without the account counters the account index may lack the conversations written before it (until a backfill):
  // no totals, so no page is planned on it.
  return { counters, totals: account.account_counters ? totalsOf(counters) : undefined, teamParts };
}

/** Estimated size (KB) of a conversation as both sources hold it. */
const ITEM_KB = 1;
/** Read units of a Query that reads `kb` (eventually consistent: half a unit per 4 KB, at least half a unit). */
const queryUnits = (kb: number) => Math.max(1, Math.ceil(kb / 4)) / 2;

/** Rows of ~ITEM_KB a Query reads for each read unit's 4 KB step (a first read is rounded up to whole steps: they are billed anyway). */
const ROWS_PER_STEP = 4 / ITEM_KB;
/** About 1 in 100 first reads of a partition runs out before the page is filled (one-sided normal quantile). */
const RUN_OUT_Z = 2.33;

/**
 * How many conversations a partition (or every partition a page reads) holds, and how many of them the page wants;
 * `most`, the most it may hold when `all` is an estimate (a shard's share of its status: the split by display id is
 * uneven, a small status's conversations may all be in one shard).
 */
interface Held {
  wanted: number;
  all: number;
  most?: number;
}

/**
 * The rows a page's first read of one partition asks for: enough that it seldom runs out before the page is filled
 * (which would cost the page a further, sequential Query of that partition). `scope` is the partitions sized together
 * (a status's partitions of the account index; an inbox's own partition alone), as if the page's `need` conversations
 * were all theirs; a conversation's activity being independent of which of them holds it (its shard is its display id's;
 * its team says nothing of when it was last active), the page's wanted conversations found in `part` are
 * Binomial(need, part.wanted / scope.wanted), and the unwanted ones newer than the page's last are as many as a negative
 * binomial says, each in `part` with its share of the scope's unwanted ones. The
 * merge reads a partition's next head before it takes the page's next conversation, so a read of `rows` runs out when
 * the page reaches `rows` or more of the partition's conversations: the read asks for their mean plus RUN_OUT_Z
 * standard deviations (and half a row, for a count's continuity), rounded up to a whole 4 KB step, and never more than
 * the partition may hold and one (so that it ends the partition).
 */
function firstRows(need: number, part: Held, scope: Held): number {
  if (part.wanted <= 0 || part.all <= 0) return 0;
  const n = Math.min(need, scope.wanted);
  const q = Math.min(1, part.wanted / scope.wanted);
  // Unwanted conversations newer than the page's last, in the scope (a negative binomial's failures) and their share here.
  const density = scope.wanted / Math.max(scope.all, scope.wanted);
  const unwanted = (n * (1 - density)) / density;
  const unwantedVar = (n * (1 - density)) / density ** 2;
  const u = scope.all > scope.wanted ? Math.max(0, part.all - part.wanted) / (scope.all - scope.wanted) : 0;
  const mean = n * q + u * unwanted;
  const variance = n * q * (1 - q) + unwanted * u * (1 - u) + u * u * unwantedVar;
  const rows = Math.ceil(mean + RUN_OUT_Z * Math.sqrt(variance) + 0.5);
  return Math.min(Math.ceil(part.most ?? part.all) + 1, Math.ceil(rows / ROWS_PER_STEP) * ROWS_PER_STEP);
}

interface Tally {
  wanted: number;
  all: number;
}

const bump = (
  m: Map<string, Tally & { inbox: number; status: string }>,
  key: string,
  inbox: number,
  status: string,
  n: number,
  w: boolean,
) => {
  const t = m.get(key) ?? { wanted: 0, all: 0, inbox, status };
  t.all += n;
  if (w) t.wanted += n;
  m.set(key, t);
};

export interface PagePlan {
  source: 'account' | 'inboxes' | 'none';
  /** Estimated read units of the index reads. */
  units: number;
  /** The partitions the page reads and the rows each first read asks for. */
  reads: PageRead[];
  streams: () => AsyncGenerator<ConversationRow>[];
}

/** One Query of the account index to plan: a status's partition (a team's, or a shard) and its first read. */
interface AccountRead {
  status: string;
  part: AccountListPart;
  rows: number;
}

/** One Query a page plans: a partition of the account index (AccountRead) or an inbox's partition of a status. */
export type PageRead = AccountRead | { status: string; inbox: number; rows: number };

type TeamTally = Tally & { status: string; team: number | null };

/**
 * The account index's partitions a page reads, each sized for its share of the page (`firstRows`): with `teamParts` a
 * team's conversations are only in its own partition, those without a team in the shards, so each wanted (status, team)
 * is read where it is and a team's page reads one partition of that team's conversations alone. Otherwise (an account
 * from before the team partitions) a conversation with a team may be in either its team's partition (written since)
 * or a shard: the shards are sized as holding the whole status, the team partitions as holding their team.
 */
function accountReads(
  need: number,
  statuses: (Tally & { status: string })[],
  teams: TeamTally[],
  totals: Map<string, number>,
  teamParts: boolean,
): AccountRead[] {
  return statuses.flatMap((st) => {
    const parts: (Omit<AccountRead, 'rows'> & Held)[] = [];
    // A shard holds about its share (by display id) of what the status's shards hold.
    const shards = (held: Held) => {
      for (let shard = 0; shard < LIST_SHARDS; shard++)
        parts.push({ status: st.status, part: shard, wanted: held.wanted / LIST_SHARDS, all: held.all / LIST_SHARDS, most: held.all });
    };
    for (const g of teams.filter((t) => t.status === st.status && t.wanted > 0)) {
      const all = totals.get(partTotal(st.status, g.team)) ?? g.all;
      if (g.team !== null) parts.push({ status: st.status, part: `T${g.team}`, wanted: g.wanted, all });
      else if (teamParts) shards({ wanted: g.wanted, all });
    }
    if (!teamParts) shards(st);
    // Each status is sized for a whole page: its conversations' activity is not independent of it (the open ones are
    // the recent ones, the resolved ones the many), so the counts cannot say how much of the page each status holds.
    const scope = sumHeld(parts);
    // Before the team partitions the shards may hold the whole status: sized as if they did.
    const shardScope = teamParts ? scope : sumHeld(parts.filter((p) => typeof p.part === 'number'));
    return parts.map(({ status, part, ...held }) => ({
      status,
      part,
      rows: firstRows(need, held, typeof part === 'number' ? shardScope : scope),
    }));
  });
}

const sumHeld = (parts: Held[]): Held =>
  parts.reduce((t, p) => ({ wanted: t.wanted + p.wanted, all: t.all + p.all }), { wanted: 0, all: 0 });

/** Chooses where a page comes from (exported for the unit test of the choice); `oldestFirst` reads the indexes forwards. */
export function planPage(
  accountId: number,
  { counters, totals, teamParts = false }: PageCounters,
  wanted: (c: Combination) => boolean,
  page: number,
  oldestFirst = false,
): PagePlan {
  const need = page * PAGE_SIZE;
  const byStatus = new Map<string, Tally & { inbox: number; status: string }>();
  const byPartition = new Map<string, Tally & { inbox: number; status: string }>();
  const byTeam = new Map<string, TeamTally>();
  for (const c of counters) {
    if (c.count <= 0) continue;
    const w = wanted(c);
    bump(byStatus, c.status, 0, c.status, c.count, w);
    if (c.inbox_id !== undefined) bump(byPartition, `${c.inbox_id}#${c.status}`, c.inbox_id, c.status, c.count, w);
    const t = byTeam.get(partTotal(c.status, c.team_id)) ?? { wanted: 0, all: 0, status: c.status, team: c.team_id };
    t.all += c.count;
    if (w) t.wanted += c.count;
    byTeam.set(partTotal(c.status, c.team_id), t);
  }
  // Account counters name no inbox: the inbox indexes cannot be sized, and are not needed. Without the
  // account's totals a read of the account index cannot be sized.
  const perInbox = counters.every((c) => c.inbox_id !== undefined);
  // The account index holds every conversation of the status, wanted or not.
  const statuses = [...byStatus.values()].filter((t) => t.wanted > 0).map((t) => ({ ...t, all: totals?.get(t.status) ?? t.all }));
  if (!statuses.length) return { source: 'none', units: 0, reads: [], streams: () => [] };

  const reads = accountReads(need, statuses, [...byTeam.values()], totals ?? new Map(), teamParts);
  const accountUnits = reads.reduce((u, r) => u + queryUnits(r.rows * ITEM_KB), 0);
  const partitions = [...byPartition.values()].filter((t) => t.wanted > 0);
  // Each inbox's partition is sized for a whole page: an inbox's activity is its own (a new number, a quiet address).
  const inboxReads = partitions.map((t) => ({ status: t.status, inbox: t.inbox, rows: firstRows(need, t, t) }));
  const inboxUnits = inboxReads.reduce((u, r) => u + queryUnits(r.rows * ITEM_KB), 0);

  // Even, the source of fewer Queries: each rounds its read up to 4 KB.
  const accountFirst = accountUnits < inboxUnits || (accountUnits === inboxUnits && reads.length <= partitions.length);
  if (!perInbox || (totals && accountFirst)) {
    return {
      source: 'account',
      units: accountUnits,
      reads,
      streams: () =>
        reads.map((r) => conversationsByAccountStatus(accountId, r.status, r.part, r.rows, Math.max(r.rows, PAGE_SIZE), oldestFirst)),
    };
  }
  return {
    source: 'inboxes',
    units: inboxUnits,
    reads: inboxReads,
    streams: () =>
      inboxReads.map((r) => conversationsByInboxStatus(accountId, r.inbox, r.status, r.rows, Math.max(r.rows, 100), oldestFirst)),
  };
}

/**
 * Every conversation `wanted` accepts by inbox and status (orders other than activity, filters judged conversation
 * by conversation), from whichever costs less: one Query per (inbox, status) partition holding such conversations
 * (AP63; a Query bills at least half a unit, so many small inboxes cost more than their conversations: 300 inboxes
 * of one conversation, 150 RCU), or the account index's shards of those statuses (AP62, read whole and kept to what
 * is wanted), which needs the account's totals (complete account counters: the account index holds every
 * conversation). Either way ~1 RCU per 8 conversations read: what such a page costs grows with its scope.
 * `wanted` sees an account counter without an inbox: it stands for every inbox.
 */
export async function scopeConversations(
  accountId: number,
  { counters, totals, teamParts = false }: PageCounters,
  wanted: (c: { inbox_id?: number; status: string; team_id: number | null }) => boolean,
): Promise<ConversationRow[]> {
  const live = counters.filter((c) => c.count > 0 && wanted(c));
  const partitions = new Map<string, { inbox: number; status: string; count: number }>();
  for (const { inbox_id: inbox, status, count } of live) {
    if (inbox === undefined) continue;
    const p = partitions.get(`${inbox}#${status}`) ?? { inbox, status, count: 0 };
    p.count += count;
    partitions.set(`${inbox}#${status}`, p);
  }
  const inboxUnits = live.every((c) => c.inbox_id !== undefined)
    ? [...partitions.values()].reduce((u, p) => u + queryUnits(p.count * ITEM_KB), 0)
    : Number.POSITIVE_INFINITY;
  // The account index's partitions holding wanted conversations, each read whole: a wanted team's own partition; the
  // shards when wanted conversations without a team are (or, before the team partitions, may be) there.
  const parts = new Map<string, { status: string; part: AccountListPart; count: number }>();
  const addPart = (status: string, part: AccountListPart, count: number) => parts.set(`${status}#${part}`, { status, part, count });
  for (const { status, team_id: team } of live) {
    if (team !== null) addPart(status, `T${team}`, totals?.get(partTotal(status, team)) ?? 0);
    if (team === null || !teamParts) {
      const held = totals?.get(teamParts ? partTotal(status, null) : status) ?? 0;
      for (let shard = 0; shard < LIST_SHARDS; shard++) addPart(status, shard, held / LIST_SHARDS);
    }
  }
  const accountUnits = totals ? [...parts.values()].reduce((u, p) => u + queryUnits(p.count * ITEM_KB), 0) : Number.POSITIVE_INFINITY;
  const streams =
    accountUnits < inboxUnits
      ? [...parts.values()].map((p) => conversationsByAccountStatus(accountId, p.status, p.part, 500, 500))
      : [...partitions.values()].map((p) => conversationsByInboxStatus(accountId, p.inbox, p.status, 500));
  // A conversation whose team changed between two of the Queries may be read in both partitions.
  const read = new Map<number, ConversationRow>();
  for await (const c of mergeNewestFirst(streams)) if (wanted(c) && !read.has(c.id)) read.set(c.id, c);
  return [...read.values()];
}

/**
 * Page `page` of the conversations `wanted` accepts, newest activity first (oldest first with `oldestFirst`, Chatwoot's
 * `last_activity_at_asc`): whole records from either index (slim rows only while an upgrade builds `gsi3w`).
 * `counters` are those of `countersFor`.
 */
export async function pageByActivity(
  accountId: number,
  counters: PageCounters,
  wanted: (c: Combination) => boolean,
  page: number,
  oldestFirst = false,
): Promise<ConversationRow[]> {
  const plan = planPage(accountId, counters, wanted, page, oldestFirst);
  const skip = (page - 1) * PAGE_SIZE;
  const out: ConversationRow[] = [];
  // A conversation whose team changed between two of the page's Queries may be read in both partitions.
  const ids = new Set<number>();
  let seen = 0;
  for await (const c of mergeNewestFirst(plan.streams(), oldestFirst ? byActivityAsc : byActivityDesc)) {
    if (!wanted(c) || ids.has(c.id)) continue;
    ids.add(c.id);
    if (seen++ < skip) continue;
    out.push(c);
    if (out.length === PAGE_SIZE) break;
  }
  return out;
}

/**
 * The full records of a page of rows, in the rows' order: whole records as they are; slim rows (read from `gsi3`
 * while an upgrade builds `gsi3w`) read by key (AP61) together with the contacts the rows name (AP41).
 */
export async function pageRecords(
  accountId: number,
  rows: ConversationRow[],
): Promise<{ records: ConversationRecord[]; contacts: ContactRecord[] }> {
  const missing = rows.filter((r) => !isWhole(r));
  if (!missing.length) return { records: rows as ConversationRecord[], contacts: [] };
  const [found, contacts] = await Promise.all([
    getConversations(
      accountId,
      missing.map((r) => r.id),
    ),
    getContacts(accountId, [...new Set(rows.map((r) => r.contact_id))]),
  ]);
  const read = new Map(found.filter((c): c is ConversationRecord => !!c).map((c) => [c.id, c] as const));
  return {
    records: rows.map((r) => (isWhole(r) ? r : read.get(r.id))).filter((c): c is ConversationRecord => !!c),
    contacts: contacts.filter((c): c is ContactRecord => !!c),
  };
}
