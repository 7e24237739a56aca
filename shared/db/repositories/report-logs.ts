import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import type { Key } from '../keys.ts';
import {
  mergeContributions,
  type FoldState,
  type PendingReports,
  type ReportLog,
  type UnattendedChange,
} from '#shared/model/report-logs.ts';
import type { ConversationReportState, ReportFact, ReportingEventRecord } from '#shared/model/reports.ts';
import { encodeRemoved, encodeReportingEvent, type RemovedEvent } from '#shared/model/reporting-event-listing.ts';
import { getItem, queryItems, record } from './common.ts';

// The write side of report facts: each counted event's fact or reporting events put once, naming its log,
// and the batch's log (AP200), the conversations' report memory (AP201), the fold's unattended items (AP207);
// the logs and the account's fold state (watermark, fold in progress: AP211, AP212) that the fold and every
// read's pending figures come from; and the facts as stored, by conversation (AP209: a deletion negates them)
// and by account (AP208: the rebuild). The aggregate items the fold writes are in report-aggregates.ts.

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

/** The Chatwoot record of a stored reporting event (without the fact it carries). */
export function reportingEventOf(item: Record<string, unknown>): ReportingEventRecord {
  const { fact_id: _f, contributions: _c, ...rest } = record<Record<string, unknown>>(item)!;
  return rest as unknown as ReportingEventRecord;
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
