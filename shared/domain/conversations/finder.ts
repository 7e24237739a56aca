import {
  byActivityAsc,
  byActivityDesc,
  conversationsActiveSince,
  getConversations,
  type ConversationRow,
  listContactConversationLinks,
  listLabelledConversationIds,
} from '#shared/db/repositories/conversations.ts';
import { getConversationStates, type ConversationState } from '#shared/db/repositories/conversation-state.ts';
import { findMessages } from '../search/messages.ts';
import type { Hit } from '#shared/search/index.ts';
import { getContact } from '#shared/db/repositories/contacts.ts';
import { getTeam } from '#shared/db/repositories/teams.ts';
import type { Actor } from '#shared/model/actor.ts';
import { invalidField, notFound } from '#shared/errors.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { inboxScope } from '../inboxes/access.ts';
import { accessTest } from './access.ts';
import { STATUSES, type ConversationRecord, type ConversationStatus } from '#shared/model/conversations.ts';
import { conversationsJson, searchResultsJson } from './view.ts';
import { countersFor, PAGE_SIZE, pageByActivity, pageRecords, scopeConversations, type PageCounter } from './pages.ts';
import { withRefsCache } from './refs-cache.ts';
import { pageNumber } from '../paging.ts';

// Lists and counts (docs/chatwoot.md#lists-counts-search-and-filters). Counts without `labels`/`q` come from the
// counters (their cost is the number of (inbox, team, status, assignee) combinations in use); a list page in the
// default order reads about one page from the activity indexes, sized by those counters (pages.ts). `labels` reads
// the label's members, `q` the searchable messages of the inboxes in scope; both then count and sort the matching
// conversations.

export { PAGE_SIZE };

export interface ConversationQuery {
  status?: string;
  assignee_type?: string;
  inbox_id?: string;
  team_id?: string;
  q?: string;
  page?: string;
  sort_by?: string;
  /** Query-string `labels[]`/`labels` (comma-separated when repeated keys were joined). */
  labels?: string[];
}

export interface Counts {
  mine_count: number;
  unassigned_count: number;
  assigned_count: number;
  all_count: number;
}

interface Filters {
  statuses: readonly ConversationStatus[];
  /** Inboxes in scope; 'all' for the whole account. */
  inboxes: 'all' | Set<number>;
  teamId: number | undefined;
  labels: string[];
  q: string | undefined;
  me: number | undefined;
}

const intOf = (field: string, raw: string | undefined) => {
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,15}$/.test(raw)) throw invalidField(field, 'must be an integer');
  return Number(raw);
};

/** API Gateway joins repeated query keys with commas: `labels[]=a&labels[]=b` arrives as "a,b". */
export function labelsOf(query: Record<string, string | undefined>): string[] {
  const raw = [query['labels[]'], query.labels].filter((x): x is string => !!x).join(',');
  return [
    ...new Set(
      raw
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean),
    ),
  ];
}

async function filtersOf(account: AccountRecord, actor: Actor, q: ConversationQuery): Promise<Filters> {
  const term = q.q?.trim() || undefined;
  const status = q.status || 'open';
  if (status !== 'all' && !(STATUSES as readonly string[]).includes(status)) {
    throw invalidField('status', `must be one of all, ${STATUSES.join(', ')}`);
  }
  const inboxId = intOf('inbox_id', q.inbox_id);
  const teamId = intOf('team_id', q.team_id);
  // The caller's inboxes and the team through the refs cache: a warm container answers the page in three round
  // trips (counters, index, contacts), and an agent removed from an inbox stops seeing its list within 10 s.
  const [scope, team] = await withRefsCache(() =>
    Promise.all([inboxScope(account.id, actor), teamId !== undefined ? getTeam(account.id, teamId) : undefined]),
  );
  if (teamId !== undefined && !team) throw notFound('Team');
  // An inbox the caller may not see gives an empty result, not an error
  // (docs/chatwoot.md#lists-counts-search-and-filters).
  const inboxes = inboxId !== undefined ? new Set(scope === 'all' || scope.has(inboxId) ? [inboxId] : []) : scope;
  return {
    // `q` searches every status.
    statuses: term || status === 'all' ? STATUSES : [status as ConversationStatus],
    inboxes,
    teamId,
    labels: q.labels ?? [],
    q: term,
    me: actor.type === 'user' ? actor.user.id : undefined,
  };
}

/** Whether an inbox and status (an account counter's: a status in every inbox) are in the filters' scope. */
const inPlace = (f: Filters, c: { inbox_id?: number; status: string }): boolean =>
  (f.inboxes === 'all' || (c.inbox_id !== undefined && f.inboxes.has(c.inbox_id))) && (f.statuses as readonly string[]).includes(c.status);

/** Whether a conversation (or a counter's combination; an account counter's spans every inbox) is in the filters' scope. */
const inScope = (f: Filters, c: { inbox_id?: number; team_id: number | null; status: string }): boolean =>
  inPlace(f, c) && (f.teamId === undefined || c.team_id === f.teamId);

function tally(f: Filters, rows: { assignee_id: number | null; count: number }[]): Counts {
  let all = 0;
  let unassigned = 0;
  let mine = 0;
  for (const r of rows) {
    all += r.count;
    if (r.assignee_id === null) unassigned += r.count;
    else if (r.assignee_id === f.me) mine += r.count;
  }
  return { mine_count: mine, unassigned_count: unassigned, assigned_count: all - unassigned, all_count: all };
}

interface Selection {
  /** Display ids `labels` and `q` select (before the other filters). */
  ids: number[];
  /** With `q`: the matching messages per conversation (id, inbox, time). */
  matches: Map<number, Hit[]>;
}

/** The conversations `labels` and `q` select, or undefined when neither is set. */
async function selectIds(account: AccountRecord, f: Filters): Promise<Selection | undefined> {
  if (!f.labels.length && !f.q) return undefined;
  let ids: Set<number> | undefined;
  if (f.labels.length) {
    ids = new Set((await Promise.all(f.labels.map((l) => listLabelledConversationIds(account.id, l)))).flat());
  }
  const matches = new Map<number, Hit[]>();
  if (f.q) {
    for (const hit of await findMessages(account.id, f.inboxes === 'all' ? 'all' : [...f.inboxes], f.q)) {
      if (ids && !ids.has(hit.c)) continue;
      const list = matches.get(hit.c);
      if (list) list.push(hit);
      else matches.set(hit.c, [hit]);
    }
    ids = new Set(matches.keys());
  }
  return { ids: [...ids!], matches };
}

/** The selected conversations' records that pass the other filters (lists need them to sort and show). */
async function selectedRecords(account: AccountRecord, f: Filters, sel: Selection): Promise<ConversationRecord[]> {
  const records = await getConversations(account.id, sel.ids);
  return records.filter(
    (c): c is ConversationRecord => !!c && inScope(f, c) && (!f.labels.length || c.labels.some((l) => f.labels.includes(l))),
  );
}

/** The `q` counts from the matches' assignee and team (AP77): the matching conversations are not read. */
function countsOfStates(f: Filters, ids: number[], states: Map<number, ConversationState>): Counts {
  const rows: { assignee_id: number | null; count: number }[] = [];
  for (const id of ids) {
    const st = states.get(id)!;
    if (st.deleted || (f.teamId !== undefined && st.team_id !== f.teamId)) continue;
    rows.push({ assignee_id: st.assignee_id, count: 1 });
  }
  return tally(f, rows);
}

async function countsOf(
  account: AccountRecord,
  f: Filters,
  selected: Selection | undefined,
  records?: ConversationRecord[],
  counters?: PageCounter[],
): Promise<Counts> {
  if (selected && f.q && !records) {
    // `q` counts every status; the inbox comes with each match, assignee and team from the state items
    // (AP77), so the matching conversations themselves are not read.
    return countsOfStates(f, selected.ids, await getConversationStates(account.id, selected.ids));
  }
  if (selected)
    return tally(
      f,
      (records ?? (await selectedRecords(account, f, selected))).map((c) => ({ assignee_id: c.assignee_id, count: 1 })),
    );
  return tally(
    f,
    (counters ?? (await countersFor(account, f.inboxes, 'counts')).counters).filter((row) => row.count !== 0 && inScope(f, row)),
  );
}

/**
 * `GET /conversations/meta` (contract endpoint 4, docs/contract.md#endpoints): `{meta: {mine_count,
 * unassigned_count, assigned_count, all_count}}`.
 */
export async function conversationMeta(account: AccountRecord, actor: Actor, q: ConversationQuery) {
  const f = await filtersOf(account, actor, q);
  return { meta: await countsOf(account, f, await selectIds(account, f)) };
}

function assigneeFilter(type: string | undefined, me: number | undefined) {
  switch (type) {
    case 'me':
      return (c: Pick<ConversationRow, 'assignee_id'>) => c.assignee_id !== null && c.assignee_id === me;
    case 'unassigned':
      return (c: Pick<ConversationRow, 'assignee_id'>) => c.assignee_id === null;
    case 'assigned':
      return (c: Pick<ConversationRow, 'assignee_id'>) => c.assignee_id !== null;
    default:
      return () => true;
  }
}

type Sorter = (a: ConversationRow, b: ConversationRow) => number;

const PRIORITY_RANK: Record<string, number> = { low: 0, medium: 1, high: 2, urgent: 3 };
const nullsLast = (a: number | null, b: number | null, dir: 1 | -1) =>
  a === null ? (b === null ? 0 : 1) : b === null ? -1 : dir * (a - b);

const SORTS: Record<string, Sorter> = {
  last_activity_at_desc: byActivityDesc,
  latest: byActivityDesc,
  last_activity_at_asc: byActivityAsc,
  created_at_desc: (a, b) => b.created_at - a.created_at || b.id - a.id,
  created_at_asc: (a, b) => a.created_at - b.created_at || a.id - b.id,
  sort_on_created_at: (a, b) => a.created_at - b.created_at || a.id - b.id,
  priority_desc: (a, b) =>
    nullsLast(PRIORITY_RANK[a.priority ?? ''] ?? null, PRIORITY_RANK[b.priority ?? ''] ?? null, -1) || byActivityDesc(a, b),
  sort_on_priority: (a, b) =>
    nullsLast(PRIORITY_RANK[a.priority ?? ''] ?? null, PRIORITY_RANK[b.priority ?? ''] ?? null, -1) || byActivityDesc(a, b),
  priority_asc: (a, b) =>
    nullsLast(PRIORITY_RANK[a.priority ?? ''] ?? null, PRIORITY_RANK[b.priority ?? ''] ?? null, 1) || byActivityDesc(a, b),
  waiting_since_asc: (a, b) => nullsLast(a.waiting_since, b.waiting_since, 1) || byActivityDesc(a, b),
  sort_on_waiting_since: (a, b) => nullsLast(a.waiting_since, b.waiting_since, 1) || byActivityDesc(a, b),
  waiting_since_desc: (a, b) => nullsLast(a.waiting_since, b.waiting_since, -1) || byActivityDesc(a, b),
};

const conversationsById = async (account: AccountRecord, ids: number[]) =>
  new Map((await getConversations(account.id, ids)).filter((c): c is ConversationRecord => !!c).map((c) => [c.id, c]));

/** The assignee and team of conversations from their records, as the state items hold them (a missing one is gone). */
const statesOf = (ids: number[], records: Map<number, ConversationRecord>) =>
  new Map<number, ConversationState>(
    ids.map((id) => {
      const c = records.get(id);
      return [
        id,
        c ? { assignee_id: c.assignee_id, team_id: c.team_id, deleted: false } : { assignee_id: null, team_id: null, deleted: true },
      ];
    }),
  );

/**
 * A `q` page in the default order (newest activity first) without reading every matching conversation:
 * the state items (AP77) filter the matches by team and assignee; a conversation's activity is at least
 * the time of its newest matching message, so the page's conversations all come at or after τ, the
 * `page × 25`-th candidate by (newest match, id), in the index's (activity, id) order. Only the
 * activity-index rows from τ on (AP79) of the
 * matches' inboxes are read, then the page. A match whose message is newer than its index row (an index
 * copy in flight) is read directly. Few matches are read directly (cheaper than any index range), or
 * come from `known` when the caller read them already.
 */
async function qPageByActivity(
  account: AccountRecord,
  f: Filters,
  sel: Selection,
  states: Map<number, ConversationState>,
  keep: (c: ConversationRow) => boolean,
  page: number,
  known?: Map<number, ConversationRecord>,
): Promise<ConversationRow[]> {
  const want = page * PAGE_SIZE;
  const candidates = sel.ids.filter((id) => {
    const st = states.get(id)!;
    return !st.deleted && (f.teamId === undefined || st.team_id === f.teamId) && keep({ assignee_id: st.assignee_id } as ConversationRow);
  });
  const passes = (c: ConversationRow) => inScope(f, c) && keep(c) && (!f.labels.length || c.labels.some((l) => f.labels.includes(l)));
  const direct = async (ids: number[]) =>
    (known ? ids.map((id) => known.get(id)) : await getConversations(account.id, ids)).filter(
      (c): c is ConversationRecord => !!c && passes(c),
    );
  const slice = (pool: ConversationRow[]) => pool.sort(byActivityDesc).slice(want - PAGE_SIZE, want);
  if (candidates.length <= 2 * want) return slice(await direct(candidates));

  const newest = new Map<number, number>();
  const inboxes = new Set<number>();
  for (const id of candidates) {
    for (const h of sel.matches.get(id) ?? []) {
      newest.set(id, Math.max(newest.get(id) ?? 0, h.t));
      inboxes.add(h.i);
    }
  }
  // The page's conversations are at or after the want-th candidate in (newest match, id) order, in the
  // index's (activity, id) order: each candidate's activity is at least its newest match.
  const byNewest = candidates.map((id) => ({ id, t: newest.get(id) ?? 0 })).sort((a, b) => b.t - a.t || b.id - a.id);
  const bound = byNewest[want - 1];
  const atOrAfter = (t: number, id: number) => t > bound.t || (t === bound.t && id >= bound.id);
  const wanted = new Set(candidates);
  const rows = (
    await Promise.all([...inboxes].flatMap((i) => STATUSES.map((s) => conversationsActiveSince(account.id, i, s, bound.t, bound.id))))
  ).flat();
  const found = new Map<number, ConversationRow>();
  for (const r of rows) if (wanted.has(r.id) && !found.has(r.id)) found.set(r.id, r);
  // Matches at or after the bound whose row says otherwise (or is missing): read them.
  const stale = byNewest.filter((c) => atOrAfter(c.t, c.id) && (found.get(c.id)?.last_activity_at ?? -1) < c.t).map((c) => c.id);
  const pool = new Map<number, ConversationRow>();
  for (const r of found.values()) if (passes(r)) pool.set(r.id, r);
  for (const c of await direct(stale)) pool.set(c.id, c);
  for (const id of stale) if (!pool.get(id) || !('uuid' in pool.get(id)!)) pool.delete(id);
  if (pool.size < want) return slice(await direct(candidates));
  return slice([...pool.values()]);
}

/** One page of a list with its counts (the finder behind list and search). */
async function findPage(account: AccountRecord, actor: Actor, q: ConversationQuery) {
  const f = await filtersOf(account, actor, q);
  const page = pageNumber(q.page);
  const keep = assigneeFilter(q.assignee_type, f.me);
  const sorter = SORTS[q.sort_by ?? ''] ?? byActivityDesc;
  const selected = await selectIds(account, f);
  let rows: ConversationRow[];
  let counts: Counts;
  if (selected && f.q && sorter === byActivityDesc) {
    // Few matches (no more than the page reads directly anyway): their conversations give the page and,
    // with their assignee and team, the counts; no state items are read. Otherwise the state items.
    const known = selected.ids.length <= 2 * page * PAGE_SIZE ? await conversationsById(account, selected.ids) : undefined;
    const states = known ? statesOf(selected.ids, known) : await getConversationStates(account.id, selected.ids);
    counts = countsOfStates(f, selected.ids, states);
    rows = await qPageByActivity(account, f, selected, states, keep, page, known);
  } else if (selected || (sorter !== byActivityDesc && sorter !== byActivityAsc)) {
    // Orders other than the index's read the whole scope from the inbox index (whole conversations).
    const selectedRows = selected ? await selectedRecords(account, f, selected) : undefined;
    // Every conversation in scope, from the partitions the counters say hold some (never an empty inbox's) or the
    // account index, whichever costs less.
    // For a few inboxes not the account counters too: their partitions cost less than every conversation of
    // their statuses in the account index, which those counters would size.
    const counters = selected ? undefined : await countersFor(account, f.inboxes, f.inboxes === 'all' ? 'page' : 'rows');
    const pool: ConversationRow[] = selectedRows ?? (await scopeConversations(account.id, counters!, (c) => inScope(f, c)));
    rows = pool
      .filter(keep)
      .sort(sorter)
      .slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
    counts = await countsOf(account, f, selected, selectedRows, counters?.counters);
  } else {
    // Activity order either way: the indexes' own, read backwards or (oldest first) forwards.
    const counters = await countersFor(account, f.inboxes);
    rows = await pageByActivity(account.id, counters, (c) => inScope(f, c) && keep(c), page, sorter === byActivityAsc);
    counts = await countsOf(account, f, selected, undefined, counters.counters);
  }
  const { records, contacts } = await pageRecords(account.id, rows);
  return { rows: records, contacts, counts, matches: selected?.matches ?? new Map<number, Hit[]>() };
}

/** `GET /conversations`: `{data: {meta: counts, payload: [conversation]}}`, 25 a page. */
export async function listConversations(account: AccountRecord, actor: Actor, q: ConversationQuery) {
  const { rows, counts, contacts } = await findPage(account, actor, q);
  return { data: { meta: counts, payload: await conversationsJson(account.id, actor, rows, contacts) } };
}

/**
 * `GET /conversations/search?q=`: the counts without `assigned_count`, and slim conversations with
 * their matching messages (docs/chatwoot.md#lists-counts-search-and-filters).
 */
export async function searchConversations(account: AccountRecord, actor: Actor, q: ConversationQuery) {
  if (!q.q?.trim()) throw invalidField('q', 'Specify search string with parameter q', 'required');
  const { rows, counts, matches } = await findPage(account, actor, q);
  const { assigned_count: _assigned, ...meta } = counts;
  return { meta, payload: await searchResultsJson(account.id, rows, matches) };
}

/** `GET /contacts/{id}/conversations`: the contact's latest 20 conversations the caller may see. */
export async function contactConversations(account: AccountRecord, actor: Actor, contactId: number) {
  const contact = await getContact(account.id, contactId);
  if (!contact) throw notFound('Contact');
  const links = await listContactConversationLinks(account.id, contactId);
  const records = await getConversations(
    account.id,
    links.map((l) => l.conversation_id),
  );
  const may = await accessTest(account.id, actor);
  const visible = records.filter((c): c is ConversationRecord => !!c && may(c));
  return { payload: await conversationsJson(account.id, actor, visible.sort(byActivityDesc).slice(0, 20)) };
}
