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
import { LIST_SHARDS } from '#shared/db/keys.ts';

// A page of conversations in the default order (newest activity first) whose reads do not grow with the
// account's inboxes or conversations (docs/data-model.md#reads-that-grow-with-the-data). The counters (AP66, AP67),
// read anyway for the counts, say exactly how many conversations each (inbox, team, status, assignee)
// combination holds and how many of them the page's filter wants; from them the page picks the cheaper of two
// sources of whole conversations and sizes its first read so that one round trip usually fills the page:
// - the account-wide index (AP62, gsi4): conversations of a status, one Query per shard, filtered in memory:
//   about `need × all / wanted` items of ~1 KB;
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
 * The counters a page and its counts read, and how many conversations each status holds in the whole account
 * (what sizing a read of the account-wide index needs; unknown when only some inboxes' counters were read from
 * an account without account counters).
 */
export interface PageCounters {
  counters: PageCounter[];
  totals?: Map<string, number>;
}

const totalsOf = (counters: PageCounter[]) => {
  const out = new Map<string, number>();
  for (const c of counters) if (c.count > 0) out.set(c.status, (out.get(c.status) ?? 0) + c.count);
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
  if (inboxes === 'all' && account.account_counters && use !== 'rows') {
    const counters = await listAccountCounters(account.id);
    return { counters, totals: totalsOf(counters) };
  }
  if (inboxes !== 'all' && inboxes.size <= FEW_INBOXES) {
    const [counters, overall] = await Promise.all([
      listInboxCounters(account.id, [...inboxes]),
      account.account_counters && use === 'page' ? listAccountCounters(account.id) : undefined,
    ]);
    return { counters, totals: overall && totalsOf(overall) };
  }
  const counters = await listConversationCounters(account.id);
  // Without the account counters the account index may lack the conversations written before it (until a backfill):
  // no totals, so no page is planned on it.
  return { counters, totals: account.account_counters ? totalsOf(counters) : undefined };
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

/** Chooses where a page comes from (exported for the unit test of the choice); `oldestFirst` reads the indexes forwards. */
export function planPage(
  accountId: number,
  { counters, totals }: PageCounters,
  wanted: (c: Combination) => boolean,
  page: number,
  oldestFirst = false,
): PagePlan {
  const need = page * PAGE_SIZE;
  const byStatus = new Map<string, Tally & { inbox: number; status: string }>();
  const byPartition = new Map<string, Tally & { inbox: number; status: string }>();
  for (const c of counters) {
    if (c.count <= 0) continue;
    const w = wanted(c);
    bump(byStatus, c.status, 0, c.status, c.count, w);
    if (c.inbox_id !== undefined) bump(byPartition, `${c.inbox_id}#${c.status}`, c.inbox_id, c.status, c.count, w);
  }
  // Account counters name no inbox: the inbox indexes cannot be sized, and are not needed. Without the
  // account's totals a read of the account index cannot be sized.
  const perInbox = counters.every((c) => c.inbox_id !== undefined);
  // The account index holds every conversation of the status, wanted or not.
  const statuses = [...byStatus.values()].filter((t) => t.wanted > 0).map((t) => ({ ...t, all: totals?.get(t.status) ?? t.all }));
  if (!statuses.length) return { source: 'none', units: 0, streams: () => [] };

  const shardRows = (t: Tally) => Math.ceil((rowsFor(need, t.wanted, t.all) / LIST_SHARDS) * 1.15) + 1;
  const accountUnits = statuses.reduce((u, t) => u + LIST_SHARDS * queryUnits(shardRows(t) * ITEM_KB), 0);
  const partitions = [...byPartition.values()].filter((t) => t.wanted > 0);
  const inboxUnits = partitions.reduce((u, t) => u + queryUnits(rowsFor(need, t.wanted, t.all) * ITEM_KB), 0);

  if (!perInbox || (totals && accountUnits <= inboxUnits)) {
    return {
      source: 'account',
      units: accountUnits,
      streams: () =>
        statuses.flatMap((t) => {
          const first = shardRows(t);
          return Array.from({ length: LIST_SHARDS }, (_, shard) =>
            conversationsByAccountStatus(accountId, t.status, shard, first, Math.max(first, PAGE_SIZE), oldestFirst),
          );
        }),
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
  { counters, totals }: PageCounters,
  wanted: (c: { inbox_id?: number; status: string }) => boolean,
): Promise<ConversationRow[]> {
  const live = counters.filter((c) => c.count > 0 && wanted(c));
  const partitions = new Map<string, { inbox: number; status: string; count: number }>();
  for (const { inbox_id: inbox, status, count } of live) {
    if (inbox === undefined) continue;
    const p = partitions.get(`${inbox}#${status}`) ?? { inbox, status, count: 0 };
    p.count += count;
    partitions.set(`${inbox}#${status}`, p);
  }
  const statuses = [...new Set(live.map((c) => c.status))];
  const inboxUnits = live.every((c) => c.inbox_id !== undefined)
    ? [...partitions.values()].reduce((u, p) => u + queryUnits(p.count * ITEM_KB), 0)
    : Number.POSITIVE_INFINITY;
  const accountUnits = totals
    ? statuses.reduce((u, st) => u + LIST_SHARDS * queryUnits(((totals.get(st) ?? 0) / LIST_SHARDS) * ITEM_KB), 0)
    : Number.POSITIVE_INFINITY;
  const streams =
    accountUnits < inboxUnits
      ? statuses.flatMap((st) =>
          Array.from({ length: LIST_SHARDS }, (_, shard) => conversationsByAccountStatus(accountId, st, shard, 500, 500)),
        )
      : [...partitions.values()].map((p) => conversationsByInboxStatus(accountId, p.inbox, p.status, 500));
  const out: ConversationRow[] = [];
  for await (const c of mergeNewestFirst(streams)) if (wanted(c)) out.push(c);
  return out;
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
  let seen = 0;
  for await (const c of mergeNewestFirst(plan.streams(), oldestFirst ? byActivityAsc : byActivityDesc)) {
    if (!wanted(c)) continue;
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
