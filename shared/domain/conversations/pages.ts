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

/** Rows to read from a source holding `all` conversations, `wanted` of them wanted, to find `need` (with a margin). */
const rowsFor = (need: number, wanted: number, all: number) =>
  !wanted ? 0 : wanted >= all ? Math.min(need, all) + 1 : Math.min(all + 1, Math.ceil((Math.min(need, wanted) * all * 1.2) / wanted) + 2);

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
  streams: () => AsyncGenerator<ConversationRow>[];
}

/** One Query of the account index to plan: a status's partition (a team's, or a shard) and its first read. */
interface AccountRead {
  status: string;
  part: AccountListPart;
  rows: number;
}

type TeamTally = Tally & { status: string; team: number | null };

/**
 * The account index's partitions a page reads, each sized for its share of the page: with `teamParts` a team's
 * conversations are only in its own partition, those without a team in the shards, so each wanted (status, team) is
 * read where it is and a team's page reads one partition of that team's conversations alone. Otherwise (an account
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
  // `rows` split over the shards by display id; `spread` covers an uneven split when `rows` carries no margin of its own
  // for it (a status's whole page).
  const shards = (status: string, rows: number, spread = 1): AccountRead[] =>
    Array.from({ length: LIST_SHARDS }, (_, shard) => ({ status, part: shard, rows: Math.ceil((rows / LIST_SHARDS) * spread) + 1 }));
  const out: AccountRead[] = [];
  for (const st of statuses) {
    const groups = teams.filter((g) => g.status === st.status && g.wanted > 0);
    // A partition holding `all` conversations, `wanted` of them wanted, of the status's `st.wanted`: the page takes about
    // its share of wanted ones from it (conversations active alike), so it reads that share of `need`, scaled by all / wanted.
    const rows = (wanted: number, all: number) =>
      wanted === st.wanted
        ? rowsFor(need, wanted, all)
        : Math.min(all + 1, Math.ceil((Math.min(need, st.wanted) * all * 1.2) / st.wanted) + 2);
    for (const g of groups) {
      const all = totals.get(partTotal(st.status, g.team)) ?? g.all;
      if (g.team !== null) out.push({ status: st.status, part: `T${g.team}`, rows: rows(g.wanted, all) });
      else if (teamParts) out.push(...shards(st.status, rows(g.wanted, all), g.wanted === st.wanted ? 1.15 : 1));
    }
    if (!teamParts) out.push(...shards(st.status, rowsFor(need, st.wanted, st.all), 1.15));
  }
  return out;
}

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
  if (!statuses.length) return { source: 'none', units: 0, streams: () => [] };

  const reads = accountReads(need, statuses, [...byTeam.values()], totals ?? new Map(), teamParts);
  const accountUnits = reads.reduce((u, r) => u + queryUnits(r.rows * ITEM_KB), 0);
  const partitions = [...byPartition.values()].filter((t) => t.wanted > 0);
  const inboxUnits = partitions.reduce((u, t) => u + queryUnits(rowsFor(need, t.wanted, t.all) * ITEM_KB), 0);

  // Even, the source of fewer Queries: each rounds its read up to 4 KB.
  const accountFirst = accountUnits < inboxUnits || (accountUnits === inboxUnits && reads.length <= partitions.length);
  if (!perInbox || (totals && accountFirst)) {
    return {
      source: 'account',
      units: accountUnits,
      streams: () =>
        reads.map((r) => conversationsByAccountStatus(accountId, r.status, r.part, r.rows, Math.max(r.rows, PAGE_SIZE), oldestFirst)),
    };
  }
  return {
    source: 'inboxes',
    units: inboxUnits,
    streams: () =>
      partitions.map((t) => {
        const first = rowsFor(need, t.wanted, t.all);
        return conversationsByInboxStatus(accountId, t.inbox, t.status, first, Math.max(first, 100), oldestFirst);
      }),
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
