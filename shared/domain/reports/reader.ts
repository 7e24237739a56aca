import * as keys from '#shared/db/keys.ts';
import { readPendingReports } from '#shared/db/repositories/report-logs.ts';
import { getGroupBlocks, getReportParts, queryGroupDays, queryReportDays, queryReportLane } from '#shared/db/repositories/reports.ts';
import type { PendingReports } from '#shared/model/report-logs.ts';
import {
  addDayHead,
  addFigures,
  BLOCK,
  DAY,
  dayKey,
  dayStart,
  groupsOf,
  HOUR,
  memberGroupsOf,
  pickGroups,
  unitsRead,
  type Field,
  type FieldGroup,
  type Figures,
} from '#shared/model/report-buckets.ts';
import type { AccountRecord } from '#shared/model/identity.ts';

// Sums of a series over instants: F(t) = the series' figures from the first day read up to t, so a
// period [a, b) is F(b) − F(a). Reads: one Query of day items for the whole span, and the hour items (or,
// accounts with `report_blocks`, the block items of the field groups asked: docs/reports.md) of the days a
// boundary cuts (those with a day item): a BatchGet when few days far apart are cut, else one Query per
// lane (an hour of day, or a group's block of day: at most 13, or two per group, whatever the span), since
// Chatwoot's day/week/month periods in one offset all cut days at one time.

const BATCH_DAYS = 6;

const inFlight = new Map<number, Promise<PendingReports>>();

/**
 * The account's pending report logs (the fold's watermark and the logs past it: a read and a Query), which
 * every report read adds to the aggregates. Reads of one account at the same moment (a route's series, read
 * together) share one.
 */
export function pendingReports(accountId: number): Promise<PendingReports> {
  const running = inFlight.get(accountId);
  if (running) return running;
  const read = readPendingReports(accountId).finally(() => inFlight.delete(accountId));
  inFlight.set(accountId, read);
  return read;
}

/** How an account's aggregates are read: its layout, and the field groups (figures) a route needs. */
export interface SeriesRead {
  blocks: boolean;
  groups: readonly FieldGroup[];
}

/** The read of some figures of an account's series. */
export const readOf = (account: Pick<AccountRecord, 'report_blocks'>, fields: readonly Field[]): SeriesRead => ({
  blocks: !!account.report_blocks,
  groups: groupsOf(fields),
});

/**
 * F at each boundary (quarter-hour aligned instants), for one series: the figures of the groups `read` asks
 * (others are left out: block items hold one group each).
 */
export async function cumulativeAt(accountId: number, series: string, boundaries: number[], read: SeriesRead): Promise<Figures[]> {
  if (!boundaries.length) return [];
  const first = dayStart(Math.min(...boundaries));
  const last = dayStart(Math.max(...boundaries));
  const pending = await pendingReports(accountId);
  const days = new Map(
    [...(await queryReportDays(accountId, series, dayKey(first), dayKey(last), pending))].map(([d, f]) => [d, pickGroups(f, read.groups)]),
  );
  const unit = read.blocks ? BLOCK : HOUR;
  const lanes = (u: number) => (read.blocks ? read.groups.map((g) => keys.reportBlockLane(g, u)) : [keys.reportHourLane(u)]);

  // Items wanted: (lane, day) of every cut day that has figures. A day item is written with every hour or
  // block item of its day (the same additions, the fold, the rebuild and the deletion's negation alike), so a
  // day without one (or pending figures) has none either: reading them would cost a read unit apiece for nothing.
  const cuts = boundaries.filter((t) => t % DAY !== 0 && days.has(dayKey(dayStart(t))));
  const byLane = new Map<string, Set<number>>();
  for (const t of cuts) {
    for (const u of unitsRead(t - dayStart(t), unit)) {
      for (const lane of lanes(u)) {
        if (!byLane.has(lane)) byLane.set(lane, new Set());
        byLane.get(lane)!.add(dayStart(t));
      }
    }
  }
  const parts = new Map<string, Record<string, unknown> | undefined>();
  const batch: { lane: string; day: string }[] = [];
  await Promise.all(
    [...byLane].map(async ([lane, daySet]) => {
      const ds = [...daySet];
      // A BatchGet bills each item half a read unit; a Query bills the bytes of every day in its range (an
      // hour or block item is ≤ ~1.5 KB, several to a half unit): so one Query per lane once the cut days are
      // many or close together, one BatchGet for them all when they are one day or a few far apart.
      const span = (Math.max(...ds) - Math.min(...ds)) / DAY + 1;
      if (ds.length === 1 || (ds.length <= BATCH_DAYS && span > 4 * ds.length)) {
        for (const d of ds) batch.push({ lane, day: dayKey(d) });
        return;
      }
      const found = await queryReportLane(accountId, series, lane, dayKey(Math.min(...ds)), dayKey(Math.max(...ds)), pending);
      for (const [day, item] of found) parts.set(`${lane}|${day}`, item);
    }),
  );
  if (batch.length) for (const [k, item] of await getReportParts(accountId, series, batch, pending)) parts.set(k, item);
  /** A day's hour item u, or its block items u of the groups read, merged (their attributes are distinct). */
  const part = (u: number, day: string) => {
    const found = lanes(u)
      .map((lane) => parts.get(`${lane}|${day}`))
      .filter((x) => x !== undefined);
    return found.length > 1 ? Object.assign({}, ...found) : found[0];
  };

  // Day totals before each day, from the first day.
  const before = new Map<number, Figures>();
  let running: Figures = {};
  for (let d = first; d <= last; d += DAY) {
    before.set(d, { ...running });
    running = addFigures({ ...running }, days.get(dayKey(d)) ?? {});
  }

  return boundaries.map((t) => {
    const d = dayStart(t);
    const out = { ...before.get(d)! };
    if (t === d) return out;
    // Hour items hold every figure: the groups not asked are left out, as block items leave them.
    return pickGroups(
      addDayHead(out, t - d, days.get(dayKey(d)) ?? {}, (u) => part(u, dayKey(d)), unit),
      read.groups,
    );
  });
}

/** The figures of each interval [boundaries[i], boundaries[i+1]). */
export async function sumsBetween(accountId: number, series: string, boundaries: number[], read: SeriesRead): Promise<Figures[]> {
  const f = await cumulativeAt(accountId, series, boundaries, read);
  return f.slice(1).map((b, i) => addFigures({ ...b }, f[i]!, -1));
}

/**
 * The figures of each series over [since, until), for series of one family (the per-row routes: every agent,
 * inbox, team, label or channel type). Accounts with `report_groups` read the family's grouped items: per member
 * group the range's day items (one Query) and the block items of the two days the ends cut (one BatchGet), with
 * the pending logs, whatever the number of members; others read each series (`sumsBetween`).
 */
export async function familySums(
  account: Pick<AccountRecord, 'id' | 'report_blocks' | 'report_groups'>,
  series: string[],
  range: { since: number; until: number },
  fields: readonly Field[],
): Promise<Figures[]> {
  const members = series.map(keys.reportFamilyOf);
  const family = members[0]?.family;
  if (!account.report_groups || !family || members.some((m) => m?.family !== family))
    return Promise.all(
      series.map(async (s) => (await sumsBetween(account.id, s, [range.since, range.until], readOf(account, fields)))[0]!),
    );
  const sums = await memberSums(account.id, family, range.since, range.until, fields);
  return members.map((m) => sums.get(m!.member) ?? {});
}

/** Each member's figures (of the member groups `fields` need) over [since, until), from a family's grouped items. */
async function memberSums(
  accountId: number,
  family: keys.ReportFamily,
  since: number,
  until: number,
  fields: readonly Field[],
): Promise<Map<string, Figures>> {
  const groups = memberGroupsOf(fields);
  const pending = await pendingReports(accountId);
  const first = dayStart(since);
  const last = dayStart(until);
  // The day `until` falls in is read only when it cuts it (its head is then the day less its tail, or its head blocks).
  const lastRead = until === last ? last - DAY : last;
  const byGroup = await Promise.all(
    groups.map((g) =>
      lastRead < first
        ? new Map<string, Map<string, Record<string, number>>>()
        : queryGroupDays(accountId, family, g, dayKey(first), dayKey(lastRead), pending),
    ),
  );
  /** A member's figures on a day (the groups read, merged). */
  const dayOf = (member: string, day: string): Figures => Object.assign({}, ...byGroup.map((days) => days.get(day)?.get(member) ?? {}));

  // The block items of the cut days that have figures: at most two per group and cut (headPlan).
  const cuts = [since, until].filter((t) => t % DAY !== 0 && byGroup.some((days) => days.has(dayKey(dayStart(t)))));
  const wanted = new Map(
    cuts.flatMap((t) =>
      unitsRead(t - dayStart(t), BLOCK).flatMap((block) =>
        groups.map((group) => [`${group}|${block}|${dayKey(dayStart(t))}`, { group, block, day: dayKey(dayStart(t)) }] as const),
      ),
    ),
  );
  // Both ends may cut the same day: each item once.
  const blocks = wanted.size ? await getGroupBlocks(accountId, family, [...wanted.values()], pending) : undefined;
  /** A member's head of a cut day up to t: addDayHead over its day figures and its block counters. */
  const head = (member: string, t: number): Figures => {
    const day = dayKey(dayStart(t));
    const block = (u: number) => Object.assign({}, ...groups.map((g) => blocks?.get(`${g}|${u}|${day}`)?.get(member) ?? {}));
    return addDayHead({}, t - dayStart(t), dayOf(member, day), block, BLOCK);
  };

  const out = new Map<string, Figures>();
  const wholeDays = new Set<string>();
  for (let d = first; d < last; d += DAY) wholeDays.add(dayKey(d));
  for (const days of byGroup)
    for (const [day, members] of days) {
      if (!wholeDays.has(day)) continue;
      for (const [member, f] of members) out.set(member, addFigures(out.get(member) ?? {}, f as Figures));
    }
  const cutMembers = new Set<string>();
  for (const days of byGroup)
    for (const t of cuts) for (const member of days.get(dayKey(dayStart(t)))?.keys() ?? []) cutMembers.add(member);
  for (const member of cutMembers) {
    const f = out.get(member) ?? {};
    if (until % DAY !== 0) addFigures(f, head(member, until));
    if (since % DAY !== 0) addFigures(f, head(member, since), -1);
    out.set(member, f);
  }
  return out;
}
