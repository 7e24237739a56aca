import * as keys from '#shared/db/keys.ts';
import { listConversationCounters } from '#shared/db/repositories/counts.ts';
import { getMembershipFresh } from '#shared/db/repositories/agents.ts';
import { listAccountUsers } from '#shared/db/repositories/identity.ts';
import { getInbox, listInboxSummaries } from '#shared/db/repositories/inboxes.ts';
import { getLabel, listLabels } from '#shared/db/repositories/labels.ts';
import { listConversationReportingEvents, listUnattendedCounts } from '#shared/db/repositories/reports.ts';
import { getTeam, listTeams } from '#shared/db/repositories/teams.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { invalidField, notFound } from '#shared/errors.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { agentsJson } from '../agents/view.ts';
import { UTC_ZONE, zoneForOffset, type TimeZone } from './zones.ts';
import {
  ceilQuarter,
  floorQuarter,
  GROUP_BYS,
  offsetSeconds,
  periodsOf,
  type Field,
  type Figures,
  type GroupBy,
} from '#shared/model/report-buckets.ts';
import { REPORTING_EVENT_NAMES, type ReportingEventRecord } from '#shared/model/reports.ts';
import { familySums, pendingReports, readOf, sumsBetween } from './reader.ts';
import { listAccountEvents } from './listing.ts';
import { pageNumber } from '../paging.ts';

// Chatwoot's v2 reports (V2::ReportBuilder and the summary builders) answered from the aggregates the
// pipeline keeps: no request reads conversations or messages. Administrators only (handlers).

export type Query = Record<string, string | undefined>;

const COUNTS = {
  conversations_count: 'cc',
  incoming_messages_count: 'im',
  outgoing_messages_count: 'om',
  resolutions_count: 'rs_n',
  bot_resolutions_count: 'br',
  bot_handoffs_count: 'bh',
} as const;
const AVERAGES = { avg_first_response_time: 'fr', avg_resolution_time: 'rs', reply_time: 'rt' } as const;
export const METRICS = [...Object.keys(COUNTS), ...Object.keys(AVERAGES)] as (keyof typeof COUNTS | keyof typeof AVERAGES)[];
type Metric = (typeof METRICS)[number];

/** Longest range one request may ask for (reads stay bounded: day items of five years are ~2k small items). */
const MAX_RANGE_DAYS = 366 * 5;

const TRUE = new Set(['true', '1', 't', 'yes', 'on']);
const flag = (v: string | undefined) => (v === undefined ? false : TRUE.has(v.toLowerCase()));

export function timestamp(q: Query, field: 'since' | 'until'): number {
  const raw = q[field];
  if (raw === undefined || raw === '') throw invalidField(field, "can't be blank", 'required');
  if (!/^-?\d{1,12}(\.\d+)?$/.test(raw)) throw invalidField(field, 'must be a unix timestamp in seconds');
  return Math.floor(Number(raw));
}

export interface Range {
  since: number;
  until: number;
  /** The named zone Chatwoot picks for timezone_offset (zones.ts), DST included. */
  zone: TimeZone;
  businessHours: boolean;
}

/** since/until (quarter-hour resolution: the aggregates' finest bucket), offset and business_hours. */
export function rangeOf(q: Query): Range {
  const since = timestamp(q, 'since');
  const until = timestamp(q, 'until');
  if (until <= since) throw invalidField('until', 'must be after since');
  if (until - since > MAX_RANGE_DAYS * 86_400) throw invalidField('until', `must be within ${MAX_RANGE_DAYS} days of since`);
  const offset = offsetSeconds(q.timezone_offset);
  if (offset === undefined) throw invalidField('timezone_offset', 'must be hours from UTC in quarter hours between -12 and 14');
  // Blank: UTC; else the zone Chatwoot's TimezoneHelper picks for the offset (UTC when none has it now).
  const zone = q.timezone_offset === undefined || q.timezone_offset === '' ? UTC_ZONE : zoneForOffset(offset);
  return { since: floorQuarter(since), until: ceilQuarter(until), zone, businessHours: flag(q.business_hours) };
}

type ReportType = 'account' | 'agent' | 'inbox' | 'label' | 'team';
const TYPES: ReportType[] = ['account', 'agent', 'inbox', 'label', 'team'];

/** The series a report type and id name; 404 for an id not in the account. */
async function seriesOf(account: AccountRecord, q: Query): Promise<string> {
  const type = (q.type ?? 'account') as ReportType;
  if (!TYPES.includes(type)) throw invalidField('type', `must be one of ${TYPES.join(', ')}`);
  if (type === 'account') return keys.reportSeries.account();
  if (!q.id || !/^\d{1,15}$/.test(q.id)) throw invalidField('id', "can't be blank", 'required');
  const id = Number(q.id);
  switch (type) {
    case 'agent':
      if (!(await getMembershipFresh(account.id, id))) throw notFound('User');
      return keys.reportSeries.agent(id);
    case 'inbox':
      if (!(await getInbox(account.id, id))) throw notFound('Inbox');
      return keys.reportSeries.inbox(id);
    case 'team':
      if (!(await getTeam(account.id, id))) throw notFound('Team');
      return keys.reportSeries.team(id);
    case 'label': {
      const label = await getLabel(account.id, id);
      if (!label) throw notFound('Label');
      return keys.reportSeries.label(label.title);
    }
  }
}

function metricOf(raw: string | undefined): Metric {
  if (!raw) throw invalidField('metric', "can't be blank", 'required');
  if (!(METRICS as string[]).includes(raw)) throw invalidField('metric', `must be one of ${METRICS.join(', ')}`);
  return raw as Metric;
}

/** The figures a metric is computed from. */
export const metricFields = (metric: Metric): Field[] =>
  metric in COUNTS
    ? [COUNTS[metric as keyof typeof COUNTS]]
    : (['n', 's', 'b'] as const).map((x) => `${AVERAGES[metric as keyof typeof AVERAGES]}_${x}` as const);

/** A metric's value from summed figures: counts as is, averages in seconds (business seconds when asked). */
export function metricValue(
  metric: Metric,
  f: Figures,
  businessHours: boolean,
  emptyAverage: 0 | null,
): { value: number | null; count?: number } {
  if (metric in COUNTS) return { value: f[COUNTS[metric as keyof typeof COUNTS]] ?? 0 };
  const p = AVERAGES[metric as keyof typeof AVERAGES];
  const n = f[`${p}_n` as const] ?? 0;
  const sum = f[businessHours ? (`${p}_b` as const) : (`${p}_s` as const)] ?? 0;
  return { value: n ? sum / n : emptyAverage, count: n };
}

/** `GET /api/v2/accounts/{id}/reports`: one metric's time series. */
export async function timeseries(account: AccountRecord, q: Query) {
  const metric = metricOf(q.metric);
  const range = rangeOf(q);
  const group = (q.group_by || 'day') as GroupBy;
  if (!GROUP_BYS.includes(group)) throw invalidField('group_by', `must be one of ${GROUP_BYS.join(', ')}`);
  const series = await seriesOf(account, q);
  const periods = periodsOf(range.since, range.until, group, range.zone);
  const sums = await sumsBetween(
    account.id,
    series,
    [periods[0]!.from, ...periods.map((p) => p.to)],
    readOf(account, metricFields(metric)),
  );
  return periods.map((p, i) => {
    const v = metricValue(metric, sums[i]!, range.businessHours, 0);
    return metric in AVERAGES ? { value: v.value, timestamp: p.timestamp, count: v.count } : { value: v.value, timestamp: p.timestamp };
  });
}

export const SUMMARY_METRICS: Metric[] = [
  'conversations_count',
  'incoming_messages_count',
  'outgoing_messages_count',
  'avg_first_response_time',
  'avg_resolution_time',
  'resolutions_count',
  'reply_time',
];
const BOT_SUMMARY_METRICS: Metric[] = ['bot_resolutions_count', 'bot_handoffs_count'];

async function summaryOf(account: AccountRecord, q: Query, metrics: Metric[]) {
  const range = rangeOf(q);
  const series = await seriesOf(account, q);
  // The previous period: as long as this one, ending where it starts (Chatwoot's `previous`).
  const previousSince = range.since - (range.until - range.since);
  const [previous, current] = await sumsBetween(
    account.id,
    series,
    [previousSince, range.since, range.until],
    readOf(account, metrics.flatMap(metricFields)),
  );
  const shape = (f: Figures) => Object.fromEntries(metrics.map((m) => [m, metricValue(m, f, range.businessHours, null).value]));
  return { ...shape(current!), previous: shape(previous!) };
}

/** `GET …/reports/summary`. */
export const summary = (account: AccountRecord, q: Query) => summaryOf(account, q, SUMMARY_METRICS);
/** `GET …/reports/bot_summary`. */
export const botSummary = (account: AccountRecord, q: Query) => summaryOf(account, q, BOT_SUMMARY_METRICS);

const AGENTS_PER_PAGE = 25;

/** Open, unassigned, pending and open per assignee, summed from conversation counters (live reports read these too). */
export function liveCounts(counters: { status: string; assignee_id: number | null; count: number }[]) {
  const openBy = new Map<number, number>();
  let open = 0;
  let unassigned = 0;
  let pending = 0;
  for (const c of counters) {
    if (c.status === 'pending') pending += c.count;
    if (c.status !== 'open') continue;
    open += c.count;
    if (c.assignee_id == null) unassigned += c.count;
    else openBy.set(c.assignee_id, (openBy.get(c.assignee_id) ?? 0) + c.count);
  }
  return { open, unassigned, pending, openBy };
}

/** `GET …/reports/conversations`: live counts (type=account), or per agent (type=agent, 25 a page, most open first). */
export async function conversationMetrics(account: AccountRecord, q: Query) {
  if (!q.type) throw invalidField('type', "can't be blank", 'required');
  if (q.type !== 'account' && q.type !== 'agent') throw invalidField('type', 'must be one of account, agent');
  const [counters, unattended] = await Promise.all([
    listConversationCounters(account.id),
    pendingReports(account.id).then((p) => listUnattendedCounts(account.id, p)),
  ]);
  const { open, unassigned, pending, openBy } = liveCounts(counters);
  if (q.type === 'account') {
    const allUnattended = [...unattended.values()].reduce((a, b) => a + b, 0);
    return { open, unattended: allUnattended, unassigned, pending };
  }
  const page = pageNumber(q.page);
  const members = (await listAccountUsers(account.id)).map((m) => m.user_id).sort((a, b) => a - b);
  const agents = await agentsJson(account.id, members.slice((page - 1) * AGENTS_PER_PAGE, page * AGENTS_PER_PAGE));
  return agents
    .map((a) => ({
      id: a.id,
      name: a.name,
      email: a.email,
      thumbnail: a.thumbnail,
      availability: a.availability_status,
      metric: { open: openBy.get(a.id) ?? 0, unattended: unattended.get(a.id) ?? 0 },
    }))
    .sort((a, b) => b.metric.open - a.metric.open);
}

// ── summary reports: one row per agent, inbox, team or label ────────────────────────────────────────

interface Row {
  conversations_count: number;
  resolved_conversations_count: number;
  avg_resolution_time: number | null;
  avg_first_response_time: number | null;
  avg_reply_time: number | null;
  figures: Figures;
}

/** The figures of a summary row. */
const ROW_FIELDS = (
  ['conversations_count', 'resolutions_count', 'avg_resolution_time', 'avg_first_response_time', 'reply_time'] as const
).flatMap(metricFields);

async function rowsFor(account: AccountRecord, series: string[], range: Range): Promise<Row[]> {
  // The seconds or the business seconds, as the range asks (the counts either way).
  const fields = ROW_FIELDS.filter((f) => !f.endsWith(range.businessHours ? '_s' : '_b'));
  const sums = await familySums(account, series, range, fields);
  return sums.map((f) => {
    const avg = (m: Metric) => metricValue(m, f, range.businessHours, null).value;
    return {
      conversations_count: f.cc ?? 0,
      resolved_conversations_count: f.rs_n ?? 0,
      avg_resolution_time: avg('avg_resolution_time'),
      avg_first_response_time: avg('avg_first_response_time'),
      avg_reply_time: avg('reply_time'),
      figures: f,
    };
  });
}

const rowJson = ({ figures: _f, ...row }: Row) => row;

async function entities(account: AccountRecord, kind: 'agent' | 'inbox' | 'team' | 'label') {
  switch (kind) {
    case 'agent': {
      const ids = (await listAccountUsers(account.id)).map((m) => m.user_id).sort((a, b) => a - b);
      const agents = await agentsJson(account.id, ids);
      return agents.map((a) => ({ id: a.id, name: a.name as string, series: keys.reportSeries.agent(a.id), extra: {} }));
    }
    case 'inbox':
      return (await listInboxSummaries(account.id)).map((i) => ({
        id: i.id,
        name: i.name,
        series: keys.reportSeries.inbox(i.id),
        extra: { channel_type: i.channel_type },
      }));
    case 'team':
      return (await listTeams(account.id)).map((t) => ({ id: t.id, name: t.name, series: keys.reportSeries.team(t.id), extra: {} }));
    case 'label':
      return (await listLabels(account.id)).map((l) => ({ id: l.id, name: l.title, series: keys.reportSeries.label(l.title), extra: {} }));
  }
}

/** `GET /api/v2/accounts/{id}/summary_reports/{agent|inbox|team|label}`. */
export async function summaryReport(account: AccountRecord, kind: 'agent' | 'inbox' | 'team' | 'label', q: Query) {
  const range = rangeOf(q);
  const list = await entities(account, kind);
  const rows = await rowsFor(
    account,
    list.map((e) => e.series),
    range,
  );
  return list.map((e, i) => (kind === 'label' ? { id: e.id, name: e.name, ...rowJson(rows[i]!) } : { id: e.id, ...rowJson(rows[i]!) }));
}

const STATUS_FIELDS: Field[] = ['st_open', 'st_resolved', 'st_pending', 'st_snoozed'];

/** `GET …/summary_reports/channel`: conversations created in the range, by channel type and current status. */
export async function channelSummary(account: AccountRecord, q: Query) {
  const range = rangeOf(q);
  const types = [...new Set((await listInboxSummaries(account.id)).map((i) => i.channel_type))].sort();
  const sums = await familySums(account, types.map(keys.reportSeries.channel), range, STATUS_FIELDS);
  const out: Record<string, { open: number; resolved: number; pending: number; snoozed: number; total: number }> = {};
  types.forEach((t, i) => {
    const f = sums[i]!;
    const row = { open: f.st_open ?? 0, resolved: f.st_resolved ?? 0, pending: f.st_pending ?? 0, snoozed: f.st_snoozed ?? 0, total: 0 };
    row.total = row.open + row.resolved + row.pending + row.snoozed;
    if (row.total > 0) out[t] = row;
  });
  return out;
}

// ── CSV downloads ────────────────────────────────────────────────────────────────────────────────────

/** Reports::TimeFormatPresenter: "1 day 2 hours 3 minutes 4 seconds", "--" for none. */
export function readableDuration(seconds: number | null): string {
  const s = Math.floor(seconds ?? 0);
  if (s <= 0) return '--';
  const parts: [number, string][] = [
    [Math.floor(s / 86_400), 'day'],
    [Math.floor((s % 86_400) / 3_600), 'hour'],
    [Math.floor((s % 3_600) / 60), 'minute'],
    [s % 60, 'second'],
  ];
  return parts
    .filter(([n]) => n > 0)
    .map(([n, u]) => `${n} ${u}${n === 1 ? '' : 's'}`)
    .join(' ');
}

/** One CSV field: quoted when needed, and (CSVSafe) a leading formula character neutralised. */
export function csvField(v: unknown): string {
  let s = v == null ? '' : String(v);
  // Our own "--" (no value) is no formula; names typed by users may be.
  if (/^[=+\-@\t\r]/.test(s) && !/^-?\d+(\.\d+)?$/.test(s) && s !== '--') s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}
export const csvLine = (fields: unknown[]) => `${fields.map(csvField).join(',')}\n`;

const CSV_HEADERS = {
  agents: [
    'Agent name',
    'Assigned conversations',
    'Avg first response time',
    'Avg resolution time',
    'Resolution Count',
    'Avg customer waiting time',
  ],
  inboxes: ['Inbox name', 'Inbox type', 'No. of conversations', 'Avg first response time', 'Avg resolution time'],
  labels: ['Label', 'No. of conversations', 'Avg first response time', 'Avg resolution time'],
  teams: [
    'Team name',
    'No. of conversations',
    'Avg first response time',
    'Avg resolution time',
    'Resolution Count',
    'Avg customer waiting time',
  ],
} as const;
const CSV_KIND = { agents: 'agent', inboxes: 'inbox', labels: 'label', teams: 'team' } as const;

const localDate = (t: number, zone: TimeZone) => new Date((t + zone.offsetAt(t)) * 1000).toISOString().slice(0, 10);

/** `GET …/reports/{agents|inboxes|labels|teams}`: the CSV download. */
export async function csvReport(account: AccountRecord, which: keyof typeof CSV_HEADERS, q: Query) {
  const range = rangeOf(q);
  const list = await entities(account, CSV_KIND[which]);
  const rows = await rowsFor(
    account,
    list.map((e) => e.series),
    range,
  );
  let body = csvLine([...CSV_HEADERS[which]]);
  list.forEach((e, i) => {
    const r = rows[i]!;
    const times = [readableDuration(r.avg_first_response_time), readableDuration(r.avg_resolution_time)];
    const more = [r.resolved_conversations_count, readableDuration(r.avg_reply_time)];
    const line =
      which === 'inboxes'
        ? [e.name, (e.extra as { channel_type?: string }).channel_type, r.conversations_count, ...times]
        : which === 'labels'
          ? [e.name, r.conversations_count, ...times]
          : [e.name, r.conversations_count, ...times, ...more];
    body += csvLine(line);
  });
  body += csvLine([`Reporting period ${localDate(range.since, range.zone)} to ${localDate(range.until - 1, range.zone)}`]);
  return { filename: `${which.replace(/s$/, '')}_report.csv`, csv: body };
}

// ── reporting events (v1) ────────────────────────────────────────────────────────────────────────────

const iso = (t: number) => new Date(t * 1000).toISOString();

export function reportingEventJson(e: ReportingEventRecord) {
  return {
    id: e.id,
    name: e.name,
    value: e.value,
    value_in_business_hours: e.value_in_business_hours,
    event_start_time: iso(e.event_start_time),
    event_end_time: iso(e.event_end_time),
    account_id: e.account_id,
    inbox_id: e.inbox_id,
    user_id: e.user_id,
    conversation_id: e.conversation_id,
    created_at: e.created_at,
    updated_at: e.updated_at,
  };
}

const EVENTS_PER_PAGE = 25;

/** `GET /api/v1/accounts/{id}/reporting_events`: newest first, 25 a page, filtered as Chatwoot's. */
export async function listAccountReportingEvents(account: AccountRecord, q: Query) {
  const since = q.since ? timestamp(q, 'since') : 0;
  const until = q.until ? timestamp(q, 'until') : 99_999_999_999;
  const id = (field: 'inbox_id' | 'user_id') => {
    const raw = q[field];
    if (raw === undefined || raw === '') return undefined;
    if (!/^\d{1,15}$/.test(raw)) throw invalidField(field, 'must be an integer');
    return Number(raw);
  };
  const inboxId = id('inbox_id');
  const userId = id('user_id');
  const name = q.event_name || undefined;
  if (name && !(REPORTING_EVENT_NAMES as readonly string[]).includes(name))
    throw invalidField('event_name', `must be one of ${REPORTING_EVENT_NAMES.join(', ')}`);
  const page = pageNumber(q.page);
  const all = (await listAccountEvents(account.id, since, until)).filter(
    (e) =>
      (inboxId === undefined || e.inbox_id === inboxId) && (userId === undefined || e.user_id === userId) && (!name || e.name === name),
  );
  return {
    payload: all.slice((page - 1) * EVENTS_PER_PAGE, page * EVENTS_PER_PAGE).map(reportingEventJson),
    meta: { count: all.length, current_page: page, total_pages: Math.ceil(all.length / EVENTS_PER_PAGE) },
  };
}

/** `GET /api/v1/accounts/{id}/conversations/{conversation_id}/reporting_events`: oldest first. */
export async function listConversationEvents(account: AccountRecord, displayId: number) {
  if (!(await getConversation(account.id, displayId))) throw notFound('Conversation');
  return { payload: (await listConversationReportingEvents(account.id, displayId)).map(reportingEventJson) };
}
