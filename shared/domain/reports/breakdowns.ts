import * as keys from '#shared/db/keys.ts';
import { listAccountUsers } from '#shared/db/repositories/identity.ts';
import { listInboxSummaries } from '#shared/db/repositories/inboxes.ts';
import { listLabels } from '#shared/db/repositories/labels.ts';
import { queryReportDays } from '#shared/db/repositories/reports.ts';
import { listTeams } from '#shared/db/repositories/teams.ts';
import { invalidField } from '#shared/errors.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import {
  ceilQuarter,
  DAY,
  dayKey,
  FIRST_RESPONSE_BUCKETS,
  floorQuarter,
  HOUR,
  inboxField,
  offsetSeconds,
  periodStart,
  type Field,
  type Figures,
} from '#shared/model/report-buckets.ts';
import { agentsJson } from '../agents/view.ts';
import { familySums, pendingReports, readOf, sumsBetween } from './reader.ts';
import {
  csvLine,
  metricFields,
  metricValue,
  rangeOf,
  SUMMARY_METRICS,
  readableDuration,
  timestamp,
  type Query,
  type Range,
} from './service.ts';
import { railsZone, UTC_ZONE, zoneForOffset, type TimeZone } from './zones.ts';

// The rest of Chatwoot's v2 reports (ReportsController's conversations_summary, conversation_traffic,
// bot_metrics, first_response_time_distribution, inbox_label_matrix, outgoing_messages_count and the
// YearInReviewBuilder), answered from the pipeline's aggregates like the others: no request reads
// conversations or messages. docs/reports.md says what each figure is kept from and what it costs.

const ACCOUNT = keys.reportSeries.account();

/** Some figures of one series over a range. */
const sumOver = async (account: AccountRecord, series: string, range: Pick<Range, 'since' | 'until'>, fields: Field[]): Promise<Figures> =>
  (await sumsBetween(account.id, series, [range.since, range.until], readOf(account, fields)))[0]!;

const utcDate = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);

/** `GET …/reports/conversations_summary`: the account summary as Chatwoot's CSV (one row). */
export async function conversationsSummaryCsv(account: AccountRecord, q: Query) {
  const range = rangeOf(q);
  const f = await sumOver(account, ACCOUNT, range, SUMMARY_METRICS.flatMap(metricFields));
  const avg = (m: 'avg_first_response_time' | 'avg_resolution_time' | 'reply_time') =>
    readableDuration(metricValue(m, f, range.businessHours, null).value);
  // Date.strptime(since, '%s'): the UTC dates of the timestamps asked.
  let csv = csvLine([`Reporting period ${utcDate(timestamp(q, 'since'))} to ${utcDate(timestamp(q, 'until'))}`]);
  csv += '\n';
  csv += csvLine([
    'Conversations',
    'Messages received',
    'Messages sent',
    'Avg first response time',
    'Avg resolution time',
    'Resolution count',
    'Avg customer waiting time',
  ]);
  csv += csvLine([
    f.cc ?? 0,
    f.im ?? 0,
    f.om ?? 0,
    avg('avg_first_response_time'),
    avg('avg_resolution_time'),
    f.rs_n ?? 0,
    avg('reply_time'),
  ]);
  return { filename: 'conversations_summary_report.csv', csv };
}

const TRAFFIC_DAYS = 7;

/** ActiveSupport::TimeZone#to_s: "(GMT+05:30) Chennai". */
export function zoneLabel(hours: number): string {
  const zone = railsZone(hours);
  if (!zone) return '';
  const seconds = Math.round(Math.abs(hours) <= 13 ? hours * HOUR : hours);
  const abs = Math.abs(seconds);
  const hh = String(Math.floor(abs / HOUR)).padStart(2, '0');
  const mm = String(Math.floor((abs % HOUR) / 60)).padStart(2, '0');
  return `(GMT${seconds < 0 ? '-' : '+'}${hh}:${mm}) ${zone.name}`;
}

/** The local date and hour of an instant in a zone. */
function localHour(t: number, zone: TimeZone) {
  const local = t + zone.offsetAt(t);
  return { date: utcDate(local), hour: Math.floor((local % DAY) / HOUR) };
}

/**
 * The conversations created per local hour of the last seven local days (today included) in the asked
 * timezone: dates (oldest first) and, per hour 0–23, a count per date. Hour boundaries are instants on
 * the quarter hour in every offset Chatwoot accepts, so the aggregates give them exactly.
 */
export async function trafficGrid(account: Pick<AccountRecord, 'id' | 'report_blocks'>, zone: TimeZone, now: number) {
  const todayStart = periodStart(now, 'day', zone);
  const dayStarts = [todayStart];
  while (dayStarts.length < TRAFFIC_DAYS) dayStarts.unshift(periodStart(dayStarts[0]! - 1, 'day', zone));
  const end = periodStart(todayStart + DAY + 2 * HOUR, 'day', zone);
  const boundaries: number[] = [];
  for (let t = dayStarts[0]!; t < end; t += HOUR) boundaries.push(t);
  boundaries.push(end);
  const sums = await sumsBetween(account.id, ACCOUNT, boundaries, readOf(account, ['cc']));
  const dates = dayStarts.map((d) => localHour(d, zone).date);
  const rows = Array.from({ length: 24 }, () => dates.map(() => 0));
  sums.forEach((f, i) => {
    const { date, hour } = localHour(boundaries[i]!, zone);
    const col = dates.indexOf(date);
    if (col >= 0) rows[hour]![col]! += f.cc ?? 0;
  });
  return { dates, rows };
}

/** `GET …/reports/conversation_traffic`: the heatmap CSV (Chatwoot's HeatmapHelper and template). */
export async function conversationTrafficCsv(account: AccountRecord, q: Query) {
  const offset = offsetSeconds(q.timezone_offset);
  if (offset === undefined) throw invalidField('timezone_offset', 'must be hours from UTC in quarter hours between -12 and 14');
  const zone = q.timezone_offset === undefined || q.timezone_offset === '' ? UTC_ZONE : zoneForOffset(offset);
  const { dates, rows } = await trafficGrid(account, zone, Date.now() / 1000);
  let csv = csvLine(['Timezone', zoneLabel(offset / HOUR)]);
  csv += '\n';
  csv += csvLine(['Start of the hour', ...dates]);
  rows.forEach((row, hour) => {
    csv += csvLine([`${String(hour).padStart(2, '0')}:00`, ...row]);
  });
  return { filename: 'conversation_traffic_reports.csv', csv };
}

/** `GET …/reports/bot_metrics`: conversations and outgoing messages of the inboxes a bot answers, and the bot's rates. */
export async function botMetrics(account: AccountRecord, q: Query) {
  // Without both ends Chatwoot's range is nil and every count 0.
  if (!q.since || !q.until) return { conversation_count: 0, message_count: 0, resolution_rate: 0, handoff_rate: 0 };
  const range = rangeOf(q);
  const botInboxes = (await listInboxSummaries(account.id)).filter((i) => i.agent_bot_id != null);
  const [all, perInbox] = await Promise.all([
    sumOver(account, ACCOUNT, range, ['br', 'bh']),
    familySums(
      account,
      botInboxes.map((i) => keys.reportSeries.inbox(i.id)),
      range,
      ['cc', 'om'],
    ),
  ]);
  const conversations = perInbox.reduce((n, f) => n + (f.cc ?? 0), 0);
  const messages = perInbox.reduce((n, f) => n + (f.om ?? 0), 0);
  const rate = (count: number) => (conversations ? Math.trunc((count / conversations) * 100) : 0);
  return {
    conversation_count: conversations,
    message_count: messages,
    resolution_rate: rate(all!.br ?? 0),
    handoff_rate: rate(all!.bh ?? 0),
  };
}

/** Chatwoot's DateRangeHelper: since/until when both are given, else everything (from the account's creation). */
function optionalRange(account: AccountRecord, q: Query): Pick<Range, 'since' | 'until'> {
  if (q.since && q.until) return rangeOf(q);
  return { since: floorQuarter(Math.min(account.created_at, Date.now() / 1000)), until: ceilQuarter(Date.now() / 1000 + 1) };
}

/** `GET …/reports/first_response_time_distribution`: first responses by time taken, per channel type. */
export async function firstResponseTimeDistribution(account: AccountRecord, q: Query) {
  const range = optionalRange(account, q);
  const inboxes = await listInboxSummaries(account.id);
  const fields = FIRST_RESPONSE_BUCKETS.map((b) => b.field);
  const sums = await familySums(
    account,
    inboxes.map((i) => keys.reportSeries.inbox(i.id)),
    range,
    fields,
  );
  const out: Record<string, Record<string, number>> = {};
  inboxes.forEach((inbox, i) => {
    const f = sums[i]!;
    if (!FIRST_RESPONSE_BUCKETS.some((b) => f[b.field])) return;
    const row = (out[inbox.channel_type] ??= Object.fromEntries(FIRST_RESPONSE_BUCKETS.map((b) => [b.label, 0])));
    for (const b of FIRST_RESPONSE_BUCKETS) row[b.label]! += f[b.field] ?? 0;
  });
  return out;
}

/** Ids from `key[]` (repeated keys arrive comma-joined) or `key`; undefined when none are given. */
function idsOf(q: Query, key: string): number[] | undefined {
  const raw = [q[`${key}[]`], q[key]].filter((s): s is string => !!s).join(',');
  const ids = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!ids.length) return undefined;
  if (!ids.every((s) => /^\d{1,15}$/.test(s))) throw invalidField(key, 'must be a list of ids');
  return ids.map(Number);
}

const byText =
  <T>(text: (x: T) => string) =>
  (a: T, b: T) =>
    text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0;

/** `GET …/reports/inbox_label_matrix`: conversations created in the range, by inbox and current label. */
export async function inboxLabelMatrix(account: AccountRecord, q: Query) {
  const range = optionalRange(account, q);
  const inboxIds = idsOf(q, 'inbox_ids');
  const labelIds = idsOf(q, 'label_ids');
  const [allInboxes, allLabels] = await Promise.all([listInboxSummaries(account.id), listLabels(account.id)]);
  const inboxes = allInboxes.filter((i) => !inboxIds || inboxIds.includes(i.id)).sort(byText((i) => i.name));
  const labels = allLabels.filter((l) => !labelIds || labelIds.includes(l.id)).sort(byText((l) => l.title));
  const fields = inboxes.map((i) => inboxField(i.id));
  const sums = await familySums(
    account,
    labels.map((l) => keys.reportSeries.label(l.title)),
    range,
    fields,
  );
  return {
    inboxes: inboxes.map((i) => ({ id: i.id, name: i.name })),
    labels: labels.map((l) => ({ id: l.id, title: l.title })),
    matrix: inboxes.map((i) => labels.map((_, j) => sums[j]![inboxField(i.id)] ?? 0)),
  };
}

const OUTGOING_GROUPS = ['agent', 'team', 'inbox', 'label'] as const;

/** `GET …/reports/outgoing_messages_count`: outgoing messages in the range per agent, team, inbox or label. */
export async function outgoingMessagesCount(account: AccountRecord, q: Query) {
  const group = q.group_by as (typeof OUTGOING_GROUPS)[number];
  if (!OUTGOING_GROUPS.includes(group)) throw invalidField('group_by', `must be one of ${OUTGOING_GROUPS.join(', ')}`);
  // Without both ends Chatwoot's range is nil and its `created_at IS NULL` finds nothing.
  if (!q.since || !q.until) return [];
  const range = rangeOf(q);
  const entities = await groupEntities(account, group);
  const sums = await familySums(
    account,
    entities.map((e) => e.series),
    range,
    ['om'],
  );
  return entities
    .map((e, i) => ({ id: e.id, name: e.name, outgoing_messages_count: sums[i]!.om ?? 0 }))
    .filter((r) => r.outgoing_messages_count > 0);
}

async function groupEntities(account: AccountRecord, group: (typeof OUTGOING_GROUPS)[number]) {
  const s = keys.reportSeries;
  switch (group) {
    case 'agent': {
      const ids = (await listAccountUsers(account.id)).map((m) => m.user_id).sort((a, b) => a - b);
      return (await agentsJson(account.id, ids)).map((a) => ({ id: a.id, name: a.name as string | null, series: s.agent(a.id) }));
    }
    case 'team':
      return (await listTeams(account.id)).map((t) => ({ id: t.id, name: t.name, series: s.team(t.id) }));
    case 'inbox':
      return (await listInboxSummaries(account.id)).map((i) => ({ id: i.id, name: i.name, series: s.inbox(i.id) }));
    case 'label':
      return (await listLabels(account.id)).map((l) => ({ id: l.id, name: l.title, series: s.label(l.title) }));
  }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * `GET /api/v2/accounts/{id}/year_in_review`: the caller's year (UTC, Chatwoot's Time.zone): conversations
 * assigned to them created that year, their busiest day, their average first response. One Query of the
 * agent series' day items (at most 366).
 */
export async function yearInReview(account: AccountRecord, userId: number, q: Query) {
  const raw = q.year;
  if (raw !== undefined && raw !== '' && !/^\d{4}$/.test(raw)) throw invalidField('year', 'must be a year');
  const year = raw ? Number(raw) : new Date().getUTCFullYear();
  const from = Date.UTC(year, 0, 1) / 1000;
  const to = Date.UTC(year, 11, 31) / 1000;
  const days = await queryReportDays(
    account.id,
    keys.reportSeries.agent(userId),
    dayKey(from),
    dayKey(to),
    await pendingReports(account.id),
  );
  let total = 0;
  let frN = 0;
  let frS = 0;
  let busiest: { day: string; count: number } | undefined;
  for (const [day, f] of [...days].sort(([a], [b]) => (a < b ? -1 : 1))) {
    total += f.cc ?? 0;
    frN += f.fr_n ?? 0;
    frS += f.fr_s ?? 0;
    if ((f.cc ?? 0) > (busiest?.count ?? 0)) busiest = { day, count: f.cc! };
  }
  return {
    year,
    total_conversations: total,
    busiest_day: busiest
      ? { date: `${MONTHS[Number(busiest.day.slice(4, 6)) - 1]} ${busiest.day.slice(6, 8)}`, count: busiest.count }
      : null,
    support_personality: { avg_response_time_seconds: frN ? Math.trunc(frS / frN) : 0 },
  };
}
