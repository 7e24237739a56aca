import { PutCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { keys, type Key } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { ConflictError, put, transact, type TxItem } from '../transact.ts';
import { dayKey, FIELDS, hourOfDay, quarterField, quarterOfHour, type Field, type Figures } from '../../domain/reports/buckets.ts';
import type { ConversationReportState, ReportFact, ReportingEventRecord } from '../../domain/reports/model.ts';
import { getItem, getMany, queryPrefix, record } from './common.ts';
import { log } from '../../log.ts';

// Report aggregates (AP200–AP208). The pipeline adds each event's figures in one transaction with the
// event's fact item (attribute_not_exists), so a redelivered event changes nothing; the API reads day
// items (one Query per series and range) and hour items (one Query per hour of day, or one BatchGet).

type Adds = Map<string, { key: Key; series: string; values: Map<string, number>; kind: 'day' | 'hour' }>;

/** The aggregate item updates of a set of contributions, merged per item. */
export function aggregateAdds(accountId: number, fact: Pick<ReportFact, 'contributions'>): Adds {
  const out: Adds = new Map();
  const add = (key: Key, series: string, kind: 'day' | 'hour', attr: string, v: number) => {
    const id = `${key.pk}|${key.sk}`;
    let entry = out.get(id);
    if (!entry) out.set(id, (entry = { key, series, values: new Map(), kind }));
    entry.values.set(attr, (entry.values.get(attr) ?? 0) + v);
  };
  for (const c of fact.contributions) {
    const day = dayKey(c.at);
    const dayItem = keys.reportDay(accountId, c.series, day);
    const hourItem = keys.reportHour(accountId, c.series, hourOfDay(c.at), day);
    for (const [f, v] of Object.entries(c.figures) as [Field, number][]) {
      if (!v) continue;
      add(dayItem, c.series, 'day', f, v);
      add(hourItem, c.series, 'hour', quarterField(f, quarterOfHour(c.at)), v);
    }
  }
  return out;
}

function addUpdate(accountId: number, entry: Adds extends Map<string, infer E> ? E : never): TxItem {
  const names: Record<string, string> = { '#t': 'type', '#a': 'account_id', '#s': 'series' };
  const values: Record<string, unknown> = { ':t': entry.kind === 'day' ? 'report_day' : 'report_hour', ':a': accountId, ':s': entry.series };
  const parts: string[] = [];
  let i = 0;
  for (const [attr, v] of entry.values) {
    names[`#f${i}`] = attr;
    values[`:v${i}`] = v;
    parts.push(`#f${i} :v${i}`);
    i++;
  }
  return {
    item: {
      Update: {
        TableName: '',
        Key: entry.key,
        UpdateExpression: `ADD ${parts.join(', ')} SET #t = :t, #a = :a, #s = :s`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  };
}

export interface FactWrite {
  fact: ReportFact;
  reportingEvents?: ReportingEventRecord[];
  conversationState?: ConversationReportState;
  /** Open conversations waiting for a reply, moved between assignees (null = unassigned). */
  unattended?: { assigneeId: number | null; delta: number }[];
}

/**
 * AP200: records one event's fact, its reporting events and its aggregate additions, all or nothing.
 * False when the fact exists already (a redelivered event).
 */
export async function recordFact(w: FactWrite): Promise<boolean> {
  const accountId = w.fact.account_id;
  const items: TxItem[] = [{ item: put({ ...keys.reportFact(accountId, w.fact.id), type: 'report_fact', ...w.fact }, { ifNew: true }) }];
  for (const e of w.reportingEvents ?? []) {
    items.push({
      item: put({
        ...keys.reportingEvent(accountId, e.created_at, e.id),
        ...keys.reportingEventIndex(accountId, e.conversation_id, e.created_at, e.id),
        type: 'reporting_event',
        ...e,
      }),
    });
  }
  if (w.conversationState) items.push({ item: put({ ...keys.reportConversation(accountId, w.conversationState.conversation_id), type: 'report_conversation', ...w.conversationState }) });
  for (const u of w.unattended ?? []) {
    if (!u.delta) continue;
    items.push({
      item: {
        Update: {
          TableName: '',
          Key: keys.liveUnattended(accountId, u.assigneeId),
          UpdateExpression: 'ADD #n :d SET #t = :t, account_id = :a, assignee_id = :u',
          ExpressionAttributeNames: { '#n': 'count', '#t': 'type' },
          ExpressionAttributeValues: { ':d': u.delta, ':t': 'report_live', ':a': accountId, ':u': u.assigneeId },
        },
      },
    });
  }
  for (const entry of aggregateAdds(accountId, w.fact).values()) items.push(addUpdate(accountId, entry));
  if (items.length === 1) return false;
  // Bounded by the callers (20 labels a conversation); refusing here rather than throwing keeps one odd
  // event from blocking its conversation's queue group.
  if (items.length > 100) {
    log.error('report fact not recorded: too many writes for one transaction', { factId: w.fact.id, items: items.length });
    return false;
  }
  try {
    await transact(items);
    return true;
  } catch (err) {
    if (err instanceof ConflictError && err.index === 0) return false;
    throw err;
  }
}

/**
 * AP200 for many events at once: the facts of events that only add figures (message counts), with their
 * additions merged per aggregate item, in as few transactions as fit (one per account while under 100
 * items). A batch of ten messages of one account then writes ten facts and the handful of day and hour
 * items they share, instead of ten transactions of five or more items each. When a fact exists already
 * (part of a redelivered batch), those events fall back to one transaction each, which skips them.
 */
export async function recordFacts(writes: FactWrite[]): Promise<void> {
  const byAccount = new Map<number, FactWrite[]>();
  for (const w of writes) byAccount.set(w.fact.account_id, [...(byAccount.get(w.fact.account_id) ?? []), w]);
  for (const [accountId, list] of byAccount) {
    let chunk: FactWrite[] = [];
    const flush = async () => {
      if (!chunk.length) return;
      const current = chunk;
      chunk = [];
      const adds = aggregateAdds(accountId, { contributions: current.flatMap((w) => w.fact.contributions) });
      const items: TxItem[] = [
        ...current.map((w) => ({ item: put({ ...keys.reportFact(accountId, w.fact.id), type: 'report_fact', ...w.fact }, { ifNew: true }) })),
        ...[...adds.values()].map((entry) => addUpdate(accountId, entry)),
      ];
      try {
        await transact(items);
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
        for (const w of current) await recordFact(w);
      }
    };
    for (const w of list) {
      const next = [...chunk, w];
      const size = next.length + aggregateAdds(accountId, { contributions: next.flatMap((x) => x.fact.contributions) }).size;
      if (size > 100 && chunk.length) await flush();
      chunk.push(w);
    }
    await flush();
  }
}

/** AP201: a conversation's report memory. */
export const getConversationReportState = (accountId: number, conversationId: number) =>
  getItem<ConversationReportState>(keys.reportConversation(accountId, conversationId), true);

async function queryBetween(pk: string, from: string, to: string, index?: { name: string; pk: string; sk: string }, forward = true) {
  const items: Record<string, unknown>[] = [];
  let start: QueryCommandInput['ExclusiveStartKey'];
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: index?.name,
        KeyConditionExpression: '#p = :p AND #s BETWEEN :a AND :b',
        ExpressionAttributeNames: { '#p': index?.pk ?? 'pk', '#s': index?.sk ?? 'sk' },
        ExpressionAttributeValues: { ':p': pk, ':a': from, ':b': to },
        ScanIndexForward: forward,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

const figuresOf = (item: Record<string, unknown>): Figures => {
  const out: Figures = {};
  for (const f of FIELDS) if (typeof item[f] === 'number') out[f] = item[f] as number;
  return out;
};

/** AP202: a series' day totals for days in [fromDay, toDay] (one Query; items are small). */
export async function queryReportDays(accountId: number, series: string, fromDay: string, toDay: string): Promise<Map<string, Figures>> {
  const items = await queryBetween(keys.reportSeriesPartition(accountId, series), keys.reportDaySk(fromDay), keys.reportDaySk(toDay));
  return new Map(items.map((i) => [String(i.sk).slice(2), figuresOf(i)]));
}

/** AP203: one hour of day of a series across days in [fromDay, toDay] (hour-first sort keys make it one range). */
export async function queryReportHourOfDay(accountId: number, series: string, hour: number, fromDay: string, toDay: string) {
  const items = await queryBetween(keys.reportSeriesPartition(accountId, series), keys.reportHourSk(hour, fromDay), keys.reportHourSk(hour, toDay));
  return new Map(items.map((i) => [String(i.sk).split('#')[2]!, i]));
}

/** AP204: hour items by (hour, day) (one BatchGet). */
export async function getReportHours(accountId: number, series: string, wanted: { hour: number; day: string }[]) {
  const rows = await getMany<Record<string, unknown>>(wanted.map((w) => keys.reportHour(accountId, series, w.hour, w.day)));
  return new Map(wanted.map((w, i) => [`${w.hour}|${w.day}`, rows[i]]));
}

/** AP205: an account's reporting events created in [since, until], newest first. */
export async function listReportingEvents(accountId: number, since: number, until: number): Promise<ReportingEventRecord[]> {
  const items = await queryBetween(keys.reportingEventsPartition(accountId), keys.reportingEventSk(Math.max(0, since)), `${keys.reportingEventSk(until)}~`, undefined, false);
  return items.map((i) => record<ReportingEventRecord>(i)!);
}

/** AP206: one conversation's reporting events, oldest first. */
export async function listConversationReportingEvents(accountId: number, conversationId: number): Promise<ReportingEventRecord[]> {
  const p = keys.conversationReportingEvents(accountId, conversationId);
  const items = await queryBetween(p.gsi1pk, keys.reportingEventSk(0), `${keys.reportingEventSk(99_999_999_999)}~`, INDEXES.gsi1);
  return items.map((i) => record<ReportingEventRecord>(i)!);
}

/** AP207: open unattended conversations per assignee (0 = unassigned). */
export async function listUnattendedCounts(accountId: number): Promise<Map<number, number>> {
  const items = await queryPrefix({ pk: keys.liveUnattendedPartition(accountId) }, keys.liveUnattendedPrefix);
  return new Map(items.map((i) => [Number(i.assignee_id ?? 0), Number(i.count ?? 0)]));
}

/** AP208: every fact of an account, in pages (the rebuild). */
export async function forEachReportFact(accountId: number, fn: (facts: ReportFact[]) => Promise<void> | void): Promise<void> {
  let start: QueryCommandInput['ExclusiveStartKey'];
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': keys.reportFactsPartition(accountId) },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    await fn((out.Items ?? []).map((i) => record<ReportFact>(i)!));
    start = out.LastEvaluatedKey;
  } while (start);
}

/** Overwrites one aggregate item (the rebuild). */
export async function putAggregate(key: Key, attrs: Record<string, unknown>) {
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...key, ...attrs } }));
}
