import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import type { Key } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { ConflictError, put, transact, type TxItem } from '../transact.ts';
import {
  blockOfDay,
  dayKey,
  fieldGroup,
  hourOfDay,
  isField,
  quarterField,
  quarterOfBlock,
  quarterOfHour,
  type Field,
  type Figures,
} from '#shared/model/report-buckets.ts';
import type { ConversationReportState, ReportFact, ReportingEventRecord } from '#shared/model/reports.ts';
import { getItem, getMany, queryItems, queryPrefix, record } from './common.ts';
import { log } from '#shared/log.ts';

// Report aggregates (AP200–AP208). The pipeline adds each event's figures in one transaction with the
// event's fact item (attribute_not_exists), so a redelivered event changes nothing; the API reads day
// items (one Query per series and range) and hour or block items (one Query per lane, or one BatchGet).

export type AggregateKind = 'day' | 'hour' | 'block';
type Adds = Map<string, { key: Key; series: string; values: Map<string, number>; kind: AggregateKind }>;
export const AGGREGATE_TYPE: Record<AggregateKind, string> = { day: 'report_day', hour: 'report_hour', block: 'report_block' };

/**
 * The aggregate item updates of a set of contributions, merged per item: day items, and hour items or
 * (`blocks`: accounts with `report_blocks`) a block item per field group and six hours.
 */
export function aggregateAdds(accountId: number, fact: Pick<ReportFact, 'contributions'>, blocks = false): Adds {
  const out: Adds = new Map();
  const add = (key: Key, series: string, kind: AggregateKind, attr: string, v: number) => {
    const id = `${key.pk}|${key.sk}`;
    let entry = out.get(id);
    if (!entry) out.set(id, (entry = { key, series, values: new Map(), kind }));
    entry.values.set(attr, (entry.values.get(attr) ?? 0) + v);
  };
  for (const c of fact.contributions ?? []) {
    const day = dayKey(c.at);
    const dayItem = keys.reportDay(accountId, c.series, day);
    const hourItem = keys.reportHour(accountId, c.series, hourOfDay(c.at), day);
    for (const [f, v] of Object.entries(c.figures) as [Field, number][]) {
      if (!v) continue;
      add(dayItem, c.series, 'day', f, v);
      if (blocks)
        add(
          keys.reportPart(accountId, c.series, keys.reportBlockLane(fieldGroup(f), blockOfDay(c.at)), day),
          c.series,
          'block',
          quarterField(f, quarterOfBlock(c.at)),
          v,
        );
      else add(hourItem, c.series, 'hour', quarterField(f, quarterOfHour(c.at)), v);
    }
  }
  return out;
}

function addUpdate(accountId: number, entry: Adds extends Map<string, infer E> ? E : never): TxItem {
  const names: Record<string, string> = { '#t': 'type', '#a': 'account_id', '#s': 'series' };
  const values: Record<string, unknown> = {
    ':t': AGGREGATE_TYPE[entry.kind],
    ':a': accountId,
    ':s': entry.series,
  };
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
  /** The account's facts are sharded (accounts made since the shards, `sharded_report_facts`): where the fact goes. */
  sharded?: boolean;
  /** The account keeps block items, not hour items (`report_blocks`: accounts made since, or rebuilt). */
  blocks?: boolean;
  reportingEvents?: ReportingEventRecord[];
  /** The conversation's report memory after this event (written when it changed). */
  conversationState?: ConversationReportState;
}

const factItem = (accountId: number, fact: ReportFact, sharded: boolean): TxItem => ({
  item: put({ ...keys.reportFact(accountId, fact.conversation_id, fact.id, sharded), type: 'report_fact', ...fact }, { ifNew: true }),
});

/**
 * A reporting event, stored among its conversation's facts: the first of an event's reporting events is
 * that event's fact (written only if new, carrying its figures), so a reply's reporting event costs one
 * item, not two.
 */
const reportingEventItem = (accountId: number, fact: ReportFact, e: ReportingEventRecord, n: number, sharded: boolean): TxItem => ({
  item: put(
    {
      ...keys.reportingEvent(accountId, e.conversation_id, fact.id, n, sharded),
      ...keys.reportingEventIndex(accountId, e.created_at, e.id),
      type: 'reporting_event',
      ...e,
      fact_id: fact.id,
      contributions: n === 0 ? fact.contributions : [],
    },
    { ifNew: n === 0 },
  ),
});

/** The items that record a write's event: its reporting events (the first is the marker), else its fact. */
const markerItems = (accountId: number, w: FactWrite): TxItem[] =>
  w.reportingEvents?.length && w.fact.conversation_id != null
    ? w.reportingEvents.map((e, n) => reportingEventItem(accountId, w.fact, e, n, !!w.sharded))
    : [factItem(accountId, w.fact, !!w.sharded)];

const stateItem = (accountId: number, st: ConversationReportState): TxItem => ({
  item: put({ ...keys.reportConversation(accountId, st.conversation_id), type: 'report_conversation', ...st }),
});

/** The items of a set of writes of one account: facts first (in order), then events, states, aggregates. */
function itemsOf(accountId: number, writes: FactWrite[]): TxItem[] {
  const states = new Map<number, ConversationReportState>();
  for (const w of writes) if (w.conversationState) states.set(w.conversationState.conversation_id, w.conversationState);
  const adds = aggregateAdds(
    accountId,
    { contributions: writes.flatMap((w) => w.fact.contributions) },
    writes.some((w) => w.blocks),
  );
  return [
    ...writes.flatMap((w) => markerItems(accountId, w)),
    ...[...states.values()].map((st) => stateItem(accountId, st)),
    ...[...adds.values()].map((entry) => addUpdate(accountId, entry)),
  ];
}

/**
 * AP200: records one event's fact, its reporting events, the conversation's report memory and its
 * aggregate additions, all or nothing. False when the fact exists already (a redelivered event).
 */
export async function recordFact(w: FactWrite): Promise<boolean> {
  const items = itemsOf(w.fact.account_id, [w]);
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
 * AP200 for a whole dispatcher batch: every event's fact, reporting events and report memory, with the
 * additions of all of them merged per aggregate item, in as few transactions as fit (one per account
 * while under 100 items). Ten events of one account then write ten facts and the handful of day and hour
 * items they share, instead of ten transactions of five to fifteen items each; a reply's reporting event
 * lands on the same day and hour items as its message. When a fact exists already (part of a redelivered
 * batch), those events fall back to one transaction each, which skips the ones recorded before.
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
      // One event too large for a transaction on its own: recordFact refuses it (logged), never a retry loop.
      if (current.length === 1) {
        await recordFact(current[0]);
        return;
      }
      try {
        await transact(itemsOf(accountId, current));
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
        for (const w of current) await recordFact(w);
      }
    };
    for (const w of list) {
      if (chunk.length && itemsOf(accountId, [...chunk, w]).length > 100) await flush();
      chunk.push(w);
    }
    await flush();
  }
}

/**
 * AP207: an open conversation waiting for a reply, kept as one small item under its assignee (put when
 * it starts waiting, deleted when it stops or moves): idempotent, so written at once, outside any
 * transaction — a redelivered event puts or deletes the same item again.
 */
export async function moveUnattended(
  accountId: number,
  conversationId: number,
  from: number | null | undefined,
  to: number | null | undefined,
  teamId: number | null,
) {
  if (from !== undefined && from !== to) {
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.liveUnattended(accountId, from, conversationId) }));
  }
  if (to !== undefined) {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.liveUnattended(accountId, to, conversationId),
          type: 'report_live',
          account_id: accountId,
          assignee_id: to,
          team_id: teamId,
          conversation_id: conversationId,
        },
      }),
    );
  }
}

/** A conversation's fact or reporting event as stored (key and type kept). */
export type StoredFact = ReportFact & { pk: string; sk: string; type: string };

/**
 * AP209: a conversation's facts and reporting events (strongly consistent: a deletion negates exactly what is
 * recorded), in the unsharded partition and the conversation's shard.
 */
export async function listConversationFacts(accountId: number, conversationId: number): Promise<StoredFact[]> {
  const pages = await Promise.all(
    keys.reportConversationFactsPartitions(accountId, conversationId).map((p) =>
      queryItems({
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
        ExpressionAttributeValues: { ':p': p, ':s': keys.reportConversationFactsPrefix(conversationId) },
        ConsistentRead: true,
      }),
    ),
  );
  return pages.flat() as unknown as StoredFact[];
}

/**
 * A deleted conversation's reporting events leave the listings (their index entry and type go; the item
 * stays as a fact, since its figures count in the rebuild with the deletion's negation), and its report
 * memory is deleted. Idempotent.
 */
export async function removeConversationReportItems(
  accountId: number,
  conversationId: number,
  reportingEvents: { pk: string; sk: string }[],
) {
  for (const key of reportingEvents) {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: key.pk, sk: key.sk },
        UpdateExpression: 'REMOVE gsi1pk, gsi1sk SET #t = :t',
        ExpressionAttributeNames: { '#t': 'type' },
        ExpressionAttributeValues: { ':t': 'report_fact' },
      }),
    );
  }
  await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.reportConversation(accountId, conversationId) }));
}

/** AP201: a conversation's report memory. */
export const getConversationReportState = (accountId: number, conversationId: number) =>
  getItem<ConversationReportState>(keys.reportConversation(accountId, conversationId), true);

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

/** AP202: a series' day totals for days in [fromDay, toDay] (one Query; items are small). */
export async function queryReportDays(accountId: number, series: string, fromDay: string, toDay: string): Promise<Map<string, Figures>> {
  const items = await queryBetween(keys.reportSeriesPartition(accountId, series), keys.reportDaySk(fromDay), keys.reportDaySk(toDay));
  return new Map(items.map((i) => [String(i.sk).slice(2), figuresOf(i)]));
}

/**
 * AP203: one lane of a series (an hour of day, or a field group's block of day) across days in [fromDay,
 * toDay] (lane-first sort keys make it one range), by day.
 */
export async function queryReportLane(accountId: number, series: string, lane: string, fromDay: string, toDay: string) {
  const items = await queryBetween(
    keys.reportSeriesPartition(accountId, series),
    keys.reportPartSk(lane, fromDay),
    keys.reportPartSk(lane, toDay),
  );
  return new Map(items.map((i) => [String(i.sk).split('#').at(-1)!, i]));
}

/** AP204: hour or block items by (lane, day) (one BatchGet), by `<lane>|<day>`. */
export async function getReportParts(accountId: number, series: string, wanted: { lane: string; day: string }[]) {
  const rows = await getMany<Record<string, unknown>>(wanted.map((w) => keys.reportPart(accountId, series, w.lane, w.day)));
  return new Map(wanted.map((w, i) => [`${w.lane}|${w.day}`, rows[i]]));
}

/** Marks an account's aggregates as block items (the rebuild, once it has written them); false when there is no account. */
export async function markReportBlocks(accountId: number): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.account(accountId),
        UpdateExpression: 'SET report_blocks = :t',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':t': true },
      }),
    );
    return true;
  } catch (err) {
    if ((err as Error).name === 'ConditionalCheckFailedException') return false;
    throw err;
  }
}

/** AP205: an account's reporting events created in [since, until], newest first. */
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

/** The Chatwoot record of a stored reporting event (without the fact it carries). */
function reportingEventOf(item: Record<string, unknown>): ReportingEventRecord {
  const { fact_id: _f, contributions: _c, ...rest } = record<Record<string, unknown>>(item)!;
  return rest as unknown as ReportingEventRecord;
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

/** AP207: the account's open unattended conversations: one small item each. */
export async function listUnattended(accountId: number): Promise<UnattendedItem[]> {
  const items = await queryPrefix({ pk: keys.liveUnattendedPartition(accountId) }, keys.liveUnattendedPrefix);
  return items
    .filter((i) => i.conversation_id != null)
    .map((i) => ({
      conversation_id: Number(i.conversation_id),
      assignee_id: Number(i.assignee_id ?? 0),
      team_id: i.team_id == null ? null : Number(i.team_id),
    }));
}

/** AP207: open unattended conversations per assignee (0 = unassigned), counted. */
export async function listUnattendedCounts(accountId: number): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const i of await listUnattended(accountId)) out.set(i.assignee_id, (out.get(i.assignee_id) ?? 0) + 1);
  return out;
}

/** AP208: every fact of an account, in pages (the rebuild): its unsharded partition, then each shard. */
export async function forEachReportFact(accountId: number, fn: (facts: ReportFact[]) => Promise<void> | void): Promise<void> {
  for (const partition of keys.reportFactsPartitions(accountId)) {
    let start: QueryCommandInput['ExclusiveStartKey'];
    do {
      const out = await db().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': partition },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      await fn((out.Items ?? []).map((i) => record<ReportFact>(i)!));
      start = out.LastEvaluatedKey;
    } while (start);
  }
}

/** Overwrites one aggregate item (the rebuild). */
export async function putAggregate(key: Key, attrs: Record<string, unknown>) {
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...key, ...attrs } }));
}

/** The keys of every item of one aggregate series partition (the rebuild). */
export async function seriesItemKeys(pk: string): Promise<Key[]> {
  const items = await queryItems({
    KeyConditionExpression: 'pk = :p',
    ExpressionAttributeValues: { ':p': pk },
    ProjectionExpression: 'pk, sk',
    ConsistentRead: true,
  });
  return items.map((i) => ({ pk: String(i.pk), sk: String(i.sk) }));
}

/** Deletes one aggregate item no fact accounts for (the rebuild). */
export async function deleteAggregate(key: Key) {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: key }));
}
