import * as keys from '../keys.ts';
import { INDEXES } from '../table.ts';
import {
  addFigures,
  BLOCK,
  dayKey,
  dayStart,
  DAY,
  fieldGroup,
  HOUR,
  isField,
  memberAttr,
  memberGroup,
  quarterField,
  memberFoldMark,
  splitMemberAttr,
  QUARTER,
  type Field,
  type Figures,
} from '#shared/model/report-buckets.ts';
import { pendingDays, pendingIn, type PendingReports, withPendingUnattended } from '#shared/model/report-logs.ts';
import type { ReportingEventRecord } from '#shared/model/reports.ts';
import { getMany, queryItems, queryPrefix } from './common.ts';
import { reportingEventOf } from './report-logs.ts';

// Report aggregates (AP200–AP213). The pipeline records each counted event's fact with a plain conditional
// put (attribute_not_exists: a redelivered event finds it), then one log per account and batch holding the
// batch's counted contributions merged and its unattended changes; a fold adds pending logs to the aggregate
// items later (each update marked with the fold, so a retried fold skips what it applied) and moves the
// account's watermark past them. Reads add the logs past the watermark. The API reads day items (one Query
// per series and range) and hour or block items (one Query per lane, or one BatchGet).
// This file holds the reads (AP202–AP207, AP213): aggregate items with the pending figures they lack,
// reporting events, unattended conversations. The facts, logs and fold state are written in report-logs.ts,
// the aggregate items in report-aggregates.ts.

async function queryBetween(pk: string, from: string, to: string, index?: { name: string; pk: string; sk: string }, forward = true) {
  return queryItems({
    IndexName: index?.name,
    KeyConditionExpression: '#p = :p AND #s BETWEEN :a AND :b',
    ExpressionAttributeNames: { '#p': index?.pk ?? 'pk', '#s': index?.sk ?? 'sk' },
    ExpressionAttributeValues: { ':p': pk, ':a': from, ':b': to },
    ScanIndexForward: forward,
  });
}

const figuresOf = (item: Record<string, unknown>): Figures => {
  const out: Figures = {};
  for (const [k, v] of Object.entries(item)) if (typeof v === 'number' && isField(k)) out[k] = v;
  return out;
};

/** Where a lane's item starts in its day, how long it spans, and (a block) the one field group it holds. */
function laneSpan(lane: string): { offset: number; span: number; group?: string } {
  const [kind, a, b] = lane.split('#');
  return kind === 'B' ? { offset: Number(b) * BLOCK, span: BLOCK, group: a } : { offset: Number(a) * HOUR, span: HOUR };
}

/** An hour or block item with the pending figures it lacks added to its quarter counters. */
function partWithPending(
  item: Record<string, unknown> | undefined,
  p: PendingReports | undefined,
  series: string,
  lane: string,
  day: number,
) {
  const { offset, span, group } = laneSpan(lane);
  const start = day + offset;
  const pending = p ? pendingIn(p, series, start, start + span, (f: string) => memberFoldMark(item, f)) : [];
  if (!pending.length) return item;
  const out: Record<string, unknown> = { ...item };
  let added = false;
  for (const c of pending) {
    for (const [f, v] of Object.entries(c.figures)) {
      if (group !== undefined && fieldGroup(f as Field) !== group) continue;
      const attr = quarterField(f as Field, Math.floor((c.at - start) / QUARTER));
      out[attr] = Number(out[attr] ?? 0) + (v ?? 0);
      added = true;
    }
  }
  return added ? out : item;
}
const dayStartOf = (day: string) => Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6, 8))) / 1000;

/**
 * AP202: a series' day totals for days in [fromDay, toDay] (one Query; items are small), with the pending
 * figures (`pending`: the logs not folded yet) each day item lacks.
 */
export async function queryReportDays(
  accountId: number,
  series: string,
  fromDay: string,
  toDay: string,
  pending?: PendingReports,
): Promise<Map<string, Figures>> {
  const items = await queryBetween(keys.reportSeriesPartition(accountId, series), keys.reportDaySk(fromDay), keys.reportDaySk(toDay));
  const out = new Map(items.map((i) => [String(i.sk).slice(2), { figures: figuresOf(i), item: i as Record<string, unknown> | undefined }]));
  if (pending?.logs.length) {
    for (const d of pendingDays(pending, series, dayStart)) {
      const day = dayKey(d);
      if (day < fromDay || day > toDay) continue;
      const into = out.get(day) ?? { figures: {}, item: undefined };
      for (const c of pendingIn(pending, series, d, d + DAY, (f: string) => memberFoldMark(into.item, f)))
        addFigures(into.figures, c.figures);
      out.set(day, into);
    }
  }
  return new Map([...out].map(([day, x]) => [day, x.figures]));
}

/**
 * AP203: one lane of a series (an hour of day, or a field group's block of day) across days in [fromDay,
 * toDay] (lane-first sort keys make it one range), by day, with the pending figures each item lacks.
 */
export async function queryReportLane(
  accountId: number,
  series: string,
  lane: string,
  fromDay: string,
  toDay: string,
  pending?: PendingReports,
) {
  const items = await queryBetween(
    keys.reportSeriesPartition(accountId, series),
    keys.reportPartSk(lane, fromDay),
    keys.reportPartSk(lane, toDay),
  );
  const out = new Map<string, Record<string, unknown> | undefined>(items.map((i) => [String(i.sk).split('#').at(-1)!, i]));
  if (pending?.logs.length) {
    for (const d of pendingDays(pending, series, dayStart)) {
      const day = dayKey(d);
      if (day < fromDay || day > toDay) continue;
      const item = partWithPending(out.get(day), pending, series, lane, d);
      if (item) out.set(day, item);
    }
  }
  return out;
}

/** AP204: hour or block items by (lane, day) (one BatchGet), by `<lane>|<day>`, pending added. */
export async function getReportParts(accountId: number, series: string, wanted: { lane: string; day: string }[], pending?: PendingReports) {
  const rows = await getMany<Record<string, unknown>>(wanted.map((w) => keys.reportPart(accountId, series, w.lane, w.day)));
  return new Map(wanted.map((w, i) => [`${w.lane}|${w.day}`, partWithPending(rows[i], pending, series, w.lane, dayStartOf(w.day))]));
}

/**
 * AP213: a family's grouped day items of one member group for days in [fromDay, toDay] (one Query), by day,
 * each with every member's figures and the pending figures it lacks (per member: past its fold mark).
 */
export async function queryGroupDays(
  accountId: number,
  family: keys.ReportFamily,
  group: string,
  fromDay: string,
  toDay: string,
  pending?: PendingReports,
): Promise<Map<string, Map<string, Record<string, number>>>> {
  const items = await queryBetween(
    keys.reportGroupPartition(accountId, family),
    keys.reportGroupDaySk(group, fromDay),
    keys.reportGroupDaySk(group, toDay),
  );
  const found = new Map(items.map((i) => [String(i.sk).split('#').at(-1)!, i]));
  const days = new Set(found.keys());
  for (const log of pending?.logs ?? [])
    for (const c of log.contributions) {
      const day = dayKey(c.at);
      if (day >= fromDay && day <= toDay && keys.reportFamilyOf(c.series)?.family === family) days.add(day);
    }
  const out = new Map<string, Map<string, Record<string, number>>>();
  for (const day of days) {
    const d = dayStartOf(day);
    out.set(
      day,
      membersWithPending(found.get(day), pending, family, group, d, d + DAY, (f) => f),
    );
  }
  return out;
}

/** AP213: grouped block items by (group, block, day) (one BatchGet), by `<group>|<block>|<day>`, pending added. */
export async function getGroupBlocks(
  accountId: number,
  family: keys.ReportFamily,
  wanted: { group: string; block: number; day: string }[],
  pending?: PendingReports,
): Promise<Map<string, Map<string, Record<string, number>>>> {
  const rows = await getMany<Record<string, unknown>>(wanted.map((w) => keys.reportGroupBlock(accountId, family, w.group, w.block, w.day)));
  return new Map(
    wanted.map((w, i) => {
      const start = dayStartOf(w.day) + w.block * BLOCK;
      const members = membersWithPending(rows[i], pending, family, w.group, start, start + BLOCK, (f, at) =>
        quarterField(f, Math.floor((at - start) / QUARTER)),
      );
      return [`${w.group}|${w.block}|${w.day}`, members];
    }),
  );
}

/**
 * A grouped item's attributes by member (`<field>` or `<field>_<q>` → value), with the pending figures of the
 * family's series in [from, to) of the item's member group that each member lacks: those of logs past the
 * watermark and past the member's fold mark (the item's, or its member bucket's).
 */
function membersWithPending(
  item: Record<string, unknown> | undefined,
  p: PendingReports | undefined,
  family: keys.ReportFamily,
  group: string,
  from: number,
  to: number,
  attrOf: (f: Field, at: number) => string,
): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  const into = (member: string) => {
    let m = out.get(member);
    if (!m) out.set(member, (m = {}));
    return m;
  };
  for (const [name, v] of Object.entries(item ?? {})) {
    const split = typeof v === 'number' ? splitMemberAttr(name) : undefined;
    if (split) into(split.member)[split.attr] = v as number;
  }
  for (const log of p?.logs ?? []) {
    if (log.sk <= p!.wm) continue;
    for (const c of log.contributions) {
      if (c.at < from || c.at >= to) continue;
      const of = keys.reportFamilyOf(c.series);
      if (of?.family !== family) continue;
      for (const [f, v] of Object.entries(c.figures) as [Field, number][]) {
        if (!v || memberGroup(f) !== group) continue;
        // A member's figure folded already (its bucket's mark, or the item's, is this log or later).
        const mark = memberFoldMark(item, memberAttr(of.member, f));
        if (mark !== undefined && log.sk <= mark) continue;
        const m = into(of.member);
        const attr = attrOf(f, c.at);
        m[attr] = (m[attr] ?? 0) + v;
      }
    }
  }
  return out;
}

/**
 * AP205: an account's reporting events created in [since, until], newest first, from the index copies written
 * before the folds listed them (AP371); kept and read with the listing items.
 */
export async function listReportingEvents(accountId: number, since: number, until: number): Promise<ReportingEventRecord[]> {
  const items = await queryBetween(
    keys.reportingEventsIndexPartition(accountId),
    keys.reportingEventSk(Math.max(0, since)),
    `${keys.reportingEventSk(until)}~`,
    INDEXES.gsi1,
    false,
  );
  return items.map(reportingEventOf);
}

/** AP206: one conversation's reporting events, oldest first (read among its facts: the unsharded partition and its shard). */
export async function listConversationReportingEvents(accountId: number, conversationId: number): Promise<ReportingEventRecord[]> {
  const prefix = keys.reportConversationFactsPrefix(conversationId);
  const items = (
    await Promise.all(keys.reportConversationFactsPartitions(accountId, conversationId).map((p) => queryBetween(p, prefix, `${prefix}~`)))
  ).flat();
  return items
    .filter((i) => i.type === 'reporting_event')
    .map(reportingEventOf)
    .sort((a, b) => a.created_at - b.created_at || a.id - b.id);
}

export interface UnattendedItem {
  conversation_id: number;
  /** 0: unassigned. */
  assignee_id: number;
  /** null: no team (items written before they carried the team have none either). */
  team_id: number | null;
}

/** AP207: the account's open unattended conversations: one small item each, with the pending logs' changes applied. */
export async function listUnattended(accountId: number, pending?: PendingReports): Promise<UnattendedItem[]> {
  const items = await queryPrefix({ pk: keys.liveUnattendedPartition(accountId) }, keys.liveUnattendedPrefix);
  const stored = items
    .filter((i) => i.conversation_id != null)
    .map((i) => ({
      conversation_id: Number(i.conversation_id),
      assignee_id: Number(i.assignee_id ?? 0),
      team_id: i.team_id == null ? null : Number(i.team_id),
    }));
  return pending ? withPendingUnattended(stored, pending) : stored;
}

/** AP207: open unattended conversations per assignee (0 = unassigned), counted. */
export async function listUnattendedCounts(accountId: number, pending?: PendingReports): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const i of await listUnattended(accountId, pending)) out.set(i.assignee_id, (out.get(i.assignee_id) ?? 0) + 1);
  return out;
}
