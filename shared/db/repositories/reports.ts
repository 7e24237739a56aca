import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import type { Key } from '../keys.ts';
import { INDEXES } from '../table.ts';
import {
  addFigures,
  BLOCK,
  blockOfDay,
  dayKey,
  dayStart,
  DAY,
  fieldGroup,
  HOUR,
  hourOfDay,
  isField,
  memberAttr,
  memberGroup,
  quarterField,
  memberBucket,
  memberFoldMark,
  splitMemberAttr,
  quarterOfBlock,
  quarterOfHour,
  QUARTER,
  type Field,
  type Figures,
} from '#shared/model/report-buckets.ts';
import {
  mergeContributions,
  pendingDays,
  pendingIn,
  type FoldState,
  type PendingReports,
  type ReportLog,
  type UnattendedChange,
  withPendingUnattended,
} from '#shared/model/report-logs.ts';
import type { ConversationReportState, ReportFact, ReportingEventRecord } from '#shared/model/reports.ts';
import { encodeRemoved, encodeReportingEvent, type RemovedEvent } from '#shared/model/reporting-event-listing.ts';
import { getItem, getMany, queryItems, queryPrefix, record } from './common.ts';

// Report aggregates (AP200–AP212). The pipeline records each counted event's fact with a plain conditional
// put (attribute_not_exists: a redelivered event finds it), then one log per account and batch holding the
// batch's counted contributions merged and its unattended changes; a fold adds pending logs to the aggregate
// items later (each update marked with the fold, so a retried fold skips what it applied) and moves the
// account's watermark past them. Reads add the logs past the watermark. The API reads day items (one Query
// per series and range) and hour or block items (one Query per lane, or one BatchGet).

export type AggregateKind = 'day' | 'hour' | 'block' | 'group';
type Adds = Map<string, { key: Key; series: string; values: Map<string, number>; kind: AggregateKind }>;
export type AggregateAdd = Adds extends Map<string, infer E> ? E : never;
export const AGGREGATE_TYPE: Record<AggregateKind, string> = {
  day: 'report_day',
  hour: 'report_hour',
  block: 'report_block',
  group: 'report_group',
};

/** Which items a set of contributions updates: the account's layout (`report_blocks`, `report_groups`). */
export interface AggregateLayout {
  blocks?: boolean;
  groups?: boolean;
}

/**
 * The aggregate item updates of a set of contributions, merged per item: day items, and hour items or
 * (`blocks`: accounts with `report_blocks`) a block item per field group and six hours; with `groups`
 * (accounts with `report_groups`) the grouped items of the series' family too: per member group, a day item
 * and a six-hour block item holding every member's figures (`<member>|<field>`, `<member>|<field>_<q>`).
 */
export function aggregateAdds(accountId: number, fact: Pick<ReportFact, 'contributions'>, layout: AggregateLayout = {}): Adds {
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
    const member = layout.groups ? keys.reportFamilyOf(c.series) : undefined;
    for (const [f, v] of Object.entries(c.figures) as [Field, number][]) {
      if (!v) continue;
      add(dayItem, c.series, 'day', f, v);
      if (layout.blocks)
        add(
          keys.reportPart(accountId, c.series, keys.reportBlockLane(fieldGroup(f), blockOfDay(c.at)), day),
          c.series,
          'block',
          quarterField(f, quarterOfBlock(c.at)),
          v,
        );
      else add(hourItem, c.series, 'hour', quarterField(f, quarterOfHour(c.at)), v);
      if (member) {
        const g = memberGroup(f);
        const family = keys.reportGroupSeries(member.family);
        add(keys.reportGroupDay(accountId, member.family, g, day), family, 'group', memberAttr(member.member, f), v);
        add(
          keys.reportGroupBlock(accountId, member.family, g, blockOfDay(c.at), day),
          family,
          'group',
          memberAttr(member.member, quarterField(f, quarterOfBlock(c.at))),
          v,
        );
      }
    }
  }
  return out;
}

/**
 * An item's update too large for one expression (DynamoDB: 4 KB an expression) goes as one update per bucket,
 * each marked `fw_<bucket>` (the fold mark of the bucket's figures), by figure: a member's figure in a grouped
 * item, a field in a series item (a block item of every figure in all its quarters holds hundreds of counters, a
 * label's counts item one `li<inbox>` per inbox, a grouped block one member's figures in 24 quarters). A read adds
 * to each figure exactly the pending part its bucket lacks (`memberFoldMark`), even between two of the updates.
 */
const PARTS_PER_UPDATE = 250;
/**
 * The bucket key of an attribute: its figure without the quarter (`<member>|<field>` in a grouped item, `<field>`
 * in a series item), so every quarter counter of one figure shares its mark. No field ends in `_<digits>`.
 */
const bucketKey = (attr: string) => attr.replace(/_\d+$/, '');
/**
 * AP210: a fold's addition to one aggregate item, marked with the fold (`fw`: the last log it folds) and
 * applied only where no fold this late wrote before: a fold retried after a crash skips the items it wrote.
 * False when skipped. A large addition goes by bucket (`MEMBER_BUCKETS`).
 */
export async function foldAggregate(accountId: number, entry: AggregateAdd, fold: string): Promise<boolean> {
  if (entry.values.size > PARTS_PER_UPDATE) {
    const buckets = new Map<number, Map<string, number>>();
    for (const [attr, v] of entry.values) {
      const b = memberBucket(bucketKey(attr));
      if (!buckets.has(b)) buckets.set(b, new Map());
      buckets.get(b)!.set(attr, v);
    }
    let wrote = false;
    for (const [b, values] of [...buckets].sort(([x], [y]) => x - y)) {
      if (await updateAggregate(accountId, { ...entry, values }, fold, `fw_${b}`)) wrote = true;
    }
    return wrote;
  }
  return updateAggregate(accountId, entry, fold);
}

async function updateAggregate(accountId: number, entry: AggregateAdd, fold: string, bucketMark?: string): Promise<boolean> {
  const names: Record<string, string> = { '#t': 'type', '#a': 'account_id', '#s': 'series', '#fw': 'fw' };
  const values: Record<string, unknown> = {
    ':t': AGGREGATE_TYPE[entry.kind],
    ':a': accountId,
    ':s': entry.series,
    ':fw': fold,
  };
  const parts: string[] = [];
  let i = 0;
  for (const [attr, v] of entry.values) {
    names[`#${i}`] = attr;
    values[`:${i}`] = v;
    parts.push(`#${i} :${i}`);
    i++;
  }
  let set = '#fw = :fw';
  let condition = 'attribute_not_exists(#fw) OR #fw < :fw';
  if (bucketMark) {
    names['#bw'] = bucketMark;
    set = '#bw = :fw';
    condition = `(${condition}) AND (attribute_not_exists(#bw) OR #bw < :fw)`;
  }
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: entry.key,
        UpdateExpression: `${parts.length ? `ADD ${parts.join(', ')} ` : ''}SET #t = :t, #a = :a, #s = :s, ${set}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

export interface FactWrite {
  fact: ReportFact;
  /** The account's facts are sharded (accounts made since the shards, `sharded_report_facts`): where the fact goes. */
  sharded?: boolean;
  reportingEvents?: ReportingEventRecord[];
  /** The conversation's report memory after this event (written when it changed). */
  conversationState?: ConversationReportState;
}

/** The item that marks a write's event as counted: its first reporting event, else its fact. */
const markerKey = (accountId: number, w: FactWrite): Key =>
  w.reportingEvents?.length && w.fact.conversation_id != null
    ? keys.reportingEvent(accountId, w.fact.conversation_id, w.fact.id, 0, !!w.sharded)
    : keys.reportFact(accountId, w.fact.conversation_id, w.fact.id, !!w.sharded);

/**
 * A write's items: its reporting events (the first is the marker, carrying the figures: a reply's reporting
 * event costs one item, not two), else its fact; each names the log that counts it.
 */
function markerItems(accountId: number, w: FactWrite, log: string): Record<string, unknown>[] {
  const { fact } = w;
  if (!(w.reportingEvents?.length && fact.conversation_id != null))
    return [{ ...keys.reportFact(accountId, fact.conversation_id, fact.id, !!w.sharded), type: 'report_fact', ...fact, log }];
  // No index copy: the account's listing is the logs', then the folds' listing items (AP371).
  return w.reportingEvents.map((e, n) => ({
    ...keys.reportingEvent(accountId, e.conversation_id, fact.id, n, !!w.sharded),
    type: 'reporting_event',
    ...e,
    fact_id: fact.id,
    contributions: n === 0 ? fact.contributions : [],
    ...(n === 0 ? { log } : {}),
  }));
}

const putItem = (Item: Record<string, unknown>, ifNew = false) =>
  db().send(new PutCommand({ TableName: tableName(), Item, ...(ifNew ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}) }));

/** A new log's sort key: the time of its put, so a fold taking logs older than a margin never passes a late one. */
export const newLogSk = (now = Date.now()) => keys.reportLogSk(now, randomBytes(4).toString('hex'));
/** The time (ms) a log's sort key carries. */
export const logTime = (sk: string) => Number(sk.split('#')[1]);

/** AP211: whether a log was written (logs are kept: the fold moves the watermark, it does not delete them). */
async function logExists(accountId: number, sk: string): Promise<boolean> {
  const out = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.reportLog(accountId, sk), ConsistentRead: true, ProjectionExpression: 'pk' }),
  );
  return !!out.Item;
}

/** What a counted fact adds to its log: its contributions and its reporting events (listed until folded). */
export interface Counted {
  contributions: ReportFact['contributions'];
  events: ReportingEventRecord[];
}

/**
 * Puts a write's marker if new. When it exists (a redelivered event) the event is counted already if its
 * marker names no log (written by the transactional pipeline before logs, with its aggregates) or a log
 * that exists; else the attempt that put it died before its log, and this log takes the event over (the
 * marker is moved to it on condition, so two takers cannot both count it). Returns what to log, or
 * undefined when the event is counted already.
 */
async function putMarker(accountId: number, w: FactWrite, log: string): Promise<Counted | undefined> {
  const [marker, ...rest] = markerItems(accountId, w, log);
  try {
    await putItem(marker!, true);
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
    const key = markerKey(accountId, w);
    const stored = (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
    const earlier = stored?.log;
    // No log: recorded with its aggregates before logs existed. This log: the same event twice in one batch.
    if (typeof earlier !== 'string' || earlier === log || (await logExists(accountId, earlier))) return undefined;
    try {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: 'SET #l = :l',
          ConditionExpression: '#l = :e',
          ExpressionAttributeNames: { '#l': 'log' },
          ExpressionAttributeValues: { ':l': log, ':e': earlier },
        }),
      );
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) return undefined;
      throw e;
    }
    // The figures stored are what the rebuild sums: the log carries those, and the reporting events as stored
    // now (the first kept, the others put again under the same keys).
    for (const item of rest) await putItem(item);
    const events = w.reportingEvents?.length ? [reportingEventOf(stored!), ...w.reportingEvents.slice(1)] : [];
    return { contributions: (stored!.contributions as ReportFact['contributions']) ?? [], events };
  }
  for (const item of rest) await putItem(item);
  return { contributions: w.fact.contributions, events: w.fact.conversation_id != null ? (w.reportingEvents ?? []) : [] };
}

/** Logs stay far below DynamoDB's 400 KB an item: a batch whose contributions are larger writes several. */
const LOG_BYTES = 64_000;

export interface LoggedBatch {
  accountId: number;
  /** The logs written, and the facts they count. */
  logs: { sk: string; n: number }[];
}

/**
 * AP200, first step: each write's marker (fact or first reporting event) put if new, naming the log `sk`;
 * what each adds to the log (undefined: counted before).
 */
export const putFacts = (accountId: number, writes: FactWrite[], sk: string) => Promise.all(writes.map((w) => putMarker(accountId, w, sk)));

/** AP200, second step: the log of the facts counted (their contributions merged) and the unattended changes. */
export async function putLog(
  accountId: number,
  sk: string,
  counted: (Counted | undefined)[],
  unattended: UnattendedChange[],
  removed: RemovedEvent[] = [],
) {
  const events = counted.flatMap((c) => c?.events ?? []).map(encodeReportingEvent);
  const item: ReportLog = {
    sk,
    account_id: accountId,
    n: counted.filter((c) => c !== undefined).length,
    contributions: mergeContributions(counted.flatMap((c) => c?.contributions ?? [])),
    unattended,
    ...(events.length ? { events } : {}),
    ...(removed.length ? { removed: removed.map(encodeRemoved) } : {}),
  };
  await putItem({ ...keys.reportLog(accountId, sk), type: 'report_log', ...item });
}

/**
 * AP200: records a dispatcher batch's report facts of one account and its unattended changes: each fact (or
 * reporting event) a plain conditional put naming its log, then the log: the counted facts' contributions
 * merged per series and quarter hour, their reporting events, the unattended changes in order (and `removed`:
 * a deleted conversation's reporting events, leaving the listing); then the conversations' report memory after
 * them. A batch that dies before its log is recorded again by its redelivery, which takes over the facts whose
 * log was never written (putMarker). No transaction: a fact is 1 write unit, not 2.
 */
export async function recordFacts(
  accountId: number,
  writes: FactWrite[],
  unattended: UnattendedChange[] = [],
  now = Date.now(),
  removed: RemovedEvent[] = [],
): Promise<LoggedBatch> {
  // Logs by size: one unless the batch is a large deletion's negation.
  const groups: FactWrite[][] = [[]];
  let bytes = 0;
  for (const w of writes) {
    const size = JSON.stringify(w.fact.contributions).length;
    if (bytes + size > LOG_BYTES && groups.at(-1)!.length) {
      groups.push([]);
      bytes = 0;
    }
    groups.at(-1)!.push(w);
    bytes += size;
  }
  const out: LoggedBatch = { accountId, logs: [] };
  for (const [g, group] of groups.entries()) {
    const sk = newLogSk(now + g);
    const counted = await putFacts(accountId, group, sk);
    const last = g === groups.length - 1;
    const changes = last ? unattended : [];
    const gone = last ? removed : [];
    const n = counted.filter((c) => c !== undefined).length;
    if (!n && !changes.length && !gone.length) continue;
    await putLog(accountId, sk, counted, changes, gone);
    out.logs.push({ sk, n });
  }
  // The report memory after the batch (a state: written again by a redelivery, after the facts that read it).
  const states = new Map<number, ConversationReportState>();
  for (const w of writes) if (w.conversationState) states.set(w.conversationState.conversation_id, w.conversationState);
  await Promise.all(
    [...states.values()].map((st) =>
      putItem({ ...keys.reportConversation(accountId, st.conversation_id), type: 'report_conversation', ...st }),
    ),
  );
  return out;
}

/** AP200 for one event outside a batch: true when it was counted now (false: counted before). */
export async function recordFact(w: FactWrite): Promise<boolean> {
  const { logs } = await recordFacts(w.fact.account_id, [w]);
  return logs.some((l) => l.n > 0);
}

/**
 * AP207: an open conversation waiting for a reply, kept as one small item under its assignee. The fold
 * applies a run of changes of one conversation as its net effect (states, so a retried fold writes the same):
 * nothing when it waits as it waited, else the items of other assignees deleted and the new one put.
 */
export async function applyUnattended(accountId: number, changes: UnattendedChange[]): Promise<number> {
  const first = changes[0];
  const last = changes.at(-1);
  if (!first || !last) return 0;
  if (first.from === last.to && (last.to === null || first.from_team === last.team_id)) return 0;
  let writes = 0;
  const stale = new Set<number>();
  for (const c of changes) for (const a of [c.from, c.to]) if (a !== null && a !== last.to) stale.add(a);
  for (const a of stale) {
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.liveUnattended(accountId, a, last.conversation_id) }));
    writes++;
  }
  if (last.to !== null) {
    await putItem({
      ...keys.liveUnattended(accountId, last.to, last.conversation_id),
      type: 'report_live',
      account_id: accountId,
      assignee_id: last.to,
      team_id: last.team_id,
      conversation_id: last.conversation_id,
    });
    writes++;
  }
  return writes;
}

/** AP212: the account's fold (watermark, fold in progress). */
export async function getFoldState(accountId: number): Promise<FoldState> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.reportFold(accountId), ConsistentRead: true }));
  const item = out.Item;
  return {
    wm: typeof item?.wm === 'string' ? item.wm : '',
    ...(typeof item?.run_end === 'string' ? { run_end: item.run_end, run_at: Number(item.run_at ?? 0) } : {}),
  };
}

/**
 * AP212: claims the fold of logs up to `end` (or resumes one whose claim went stale), on condition that
 * the account's fold is as read: one fold per account at a time. False when another dispatcher got there.
 */
export async function claimFold(accountId: number, read: FoldState, end: string, now = Date.now()): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.reportFold(accountId),
        UpdateExpression: 'SET #t = :t, #a = :a, #w = if_not_exists(#w, :w), #e = :e, #at = :now',
        ConditionExpression: read.run_end ? '#e = :re AND #at = :ra' : '(attribute_not_exists(#w) OR #w = :w) AND attribute_not_exists(#e)',
        ExpressionAttributeNames: { '#t': 'type', '#a': 'account_id', '#w': 'wm', '#e': 'run_end', '#at': 'run_at' },
        ExpressionAttributeValues: {
          ':t': 'report_fold',
          ':a': accountId,
          ':w': read.wm,
          ':e': end,
          ':now': now,
          ...(read.run_end ? { ':re': read.run_end, ':ra': read.run_at } : {}),
        },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/** AP212: a fold done: the watermark moves past its logs. */
export async function finishFold(accountId: number, end: string): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.reportFold(accountId),
      UpdateExpression: 'SET #w = :e REMOVE #e, #at',
      ConditionExpression: '#e = :e',
      ExpressionAttributeNames: { '#w': 'wm', '#e': 'run_end', '#at': 'run_at' },
      ExpressionAttributeValues: { ':e': end },
    }),
  );
}

/** AP212: the watermark set outright (the rebuild, which has summed every fact): any fold in progress is dropped. */
export async function setWatermark(accountId: number, wm: string): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.reportFold(accountId),
      UpdateExpression: 'SET #t = :t, #a = :a, #w = :w REMOVE #e, #at',
      ExpressionAttributeNames: { '#t': 'type', '#a': 'account_id', '#w': 'wm', '#e': 'run_end', '#at': 'run_at' },
      ExpressionAttributeValues: { ':t': 'report_fold', ':a': accountId, ':w': wm },
    }),
  );
}

/** AP211: the account's logs after `after`, up to `upto` (inclusive), oldest first; `limit` the first ones only. */
export async function queryLogs(
  accountId: number,
  after: string,
  upto = keys.reportLogLast,
  opts: { consistent?: boolean; limit?: number } = {},
): Promise<ReportLog[]> {
  const from = after > keys.reportLogFirst ? after : keys.reportLogFirst;
  // Nothing after `after` up to `upto` (a fold's margin ends before a watermark that a fold without a margin moved).
  if (upto <= from) return [];
  const items = await queryItems(
    {
      KeyConditionExpression: 'pk = :p AND sk BETWEEN :a AND :b',
      ExpressionAttributeValues: { ':p': keys.reportLogsPartition(accountId), ':a': from, ':b': upto },
      ConsistentRead: opts.consistent ?? false,
    },
    opts.limit === undefined ? undefined : opts.limit + 1,
  );
  return items
    .filter((i) => String(i.sk) > after)
    .slice(0, opts.limit)
    .map((i) => ({
      sk: String(i.sk),
      account_id: Number(i.account_id),
      n: Number(i.n ?? 0),
      contributions: (i.contributions as ReportLog['contributions']) ?? [],
      unattended: (i.unattended as UnattendedChange[]) ?? [],
      ...(Array.isArray(i.events) ? { events: i.events as string[] } : {}),
      ...(Array.isArray(i.removed) ? { removed: i.removed as string[] } : {}),
    }));
}

/** AP211: the newest log's sort key (the rebuild's watermark), if any. */
export async function lastLogSk(accountId: number): Promise<string | undefined> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :p AND sk BETWEEN :a AND :b',
      ExpressionAttributeValues: { ':p': keys.reportLogsPartition(accountId), ':a': keys.reportLogFirst, ':b': keys.reportLogLast },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
      ProjectionExpression: 'sk',
    }),
  );
  return out.Items?.[0]?.sk as string | undefined;
}

/** What report reads add to the aggregates: the account's watermark and the logs past it (a read and a Query). */
export async function readPendingReports(accountId: number): Promise<PendingReports> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.reportFold(accountId) }));
  const wm = typeof out.Item?.wm === 'string' ? out.Item.wm : '';
  return { wm, logs: await queryLogs(accountId, wm) };
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
 * Marks an account's aggregates as block items and grouped items (the rebuild, once it has written them); false
 * when there is no account.
 */
export async function markReportBlocks(accountId: number): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.account(accountId),
        UpdateExpression: 'SET report_blocks = :t, report_groups = :t',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':t': true },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
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
