import { getAccount } from '#shared/db/repositories/identity.ts';
import { nextId } from '#shared/db/ids.ts';
import { getInbox } from '#shared/db/repositories/inboxes.ts';
import * as keys from '#shared/db/keys.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { aggregateAdds } from '#shared/db/repositories/report-aggregates.ts';
import {
  getConversationReportState,
  listConversationFacts,
  recordFacts,
  removeConversationReportItems,
  type FactWrite,
  type LoggedBatch,
} from '#shared/db/repositories/report-logs.ts';
import { mergeContributions, type UnattendedChange } from '#shared/model/report-logs.ts';
import { foldWhenDue } from './fold.ts';
import type { DomainEvent } from '../events/domain-events.ts';
import type { ConversationContext } from '../events/payloads.ts';
import { log } from '#shared/log.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import { businessSeconds } from './business-hours.ts';
import { firstResponseBucket, inboxField, type Figures } from '#shared/model/report-buckets.ts';
import type { Contribution, ConversationReportState, ReportingEventName, ReportingEventRecord } from '#shared/model/reports.ts';

// The pipeline stage that keeps reports, as Chatwoot's ReportingEventListener and its rollups do:
// reporting events (first_response, reply_time, conversation_resolved, conversation_opened,
// conversation_bot_handoff, conversation_bot_resolved) with their values in seconds and in the inbox's
// business hours, and the aggregates the report endpoints read. One domain event = at most one fact,
// keyed by the event id (a plain conditional put: a redelivered event's fact exists, so it adds nothing);
// a dispatcher batch then writes one log per account with its counted facts' additions merged and its
// unattended changes, which a fold adds to the aggregates later (fold.ts); reads add the logs not folded yet.
//
// Attribution: a conversation's count belongs to its current assignee, team and labels (it moves when
// they change, as Chatwoot's SQL reads them); messages and reporting events belong to what the
// conversation had when they happened (Chatwoot would re-attribute old messages when a label changes).

type Dims = Pick<ConversationRecord, 'inbox_id' | 'team_id' | 'labels'>;

/** Labels that get a series: at most 20 per conversation, so one event's transaction stays under 100 items. */
const reportLabels = (labels: string[] | undefined) => [...new Set(labels ?? [])].slice(0, 20);

/** The series one figure goes to: the account, the inbox, the agent (when one), the team and each label. */
export function seriesOf(c: Dims, agentId: number | null): string[] {
  const s = keys.reportSeries;
  return [
    s.account(),
    s.inbox(c.inbox_id),
    ...(agentId ? [s.agent(agentId)] : []),
    ...(c.team_id ? [s.team(c.team_id)] : []),
    ...reportLabels(c.labels).map((l) => s.label(l)),
  ];
}

const spread = (series: string[], at: number, figures: Figures): Contribution[] => series.map((s) => ({ series: s, at, figures }));

/** Open and waiting for a human reply (Chatwoot's `unattended` scope on open conversations). */
export const isUnattended = (c: Pick<ConversationRecord, 'status' | 'first_reply_created_at' | 'waiting_since'>) =>
  c.status === 'open' && (c.first_reply_created_at == null || c.waiting_since != null);

const STATUS_FIELD = { open: 'st_open', resolved: 'st_resolved', pending: 'st_pending', snoozed: 'st_snoozed' } as const;

interface Pending {
  contributions: Contribution[];
  events: Omit<ReportingEventRecord, 'id'>[];
  state?: ConversationReportState;
  /** The conversation's unattended state changing (logged with the batch, applied by the fold). */
  unattended?: Omit<UnattendedChange, 'conversation_id'>;
}

/** A label series' count by inbox (inbox × label matrix): merged into the label items the count already writes. */
const labelInboxes = (labels: Iterable<string>, inboxId: number, at: number, sign: 1 | -1): Contribution[] =>
  [...labels].map((l) => ({ series: keys.reportSeries.label(l), at, figures: { [inboxField(inboxId)]: sign } }));

function reportingEvent(
  name: ReportingEventName,
  c: ConversationRecord,
  inbox: InboxRecord | undefined,
  start: number,
  end: number,
  userId: number | null,
  zero = false,
): Omit<ReportingEventRecord, 'id'> {
  return {
    name,
    value: zero ? 0 : end - start,
    value_in_business_hours: zero ? 0 : businessSeconds(inbox, start, end),
    account_id: c.account_id,
    inbox_id: c.inbox_id,
    user_id: userId,
    conversation_id: c.id,
    event_start_time: start,
    event_end_time: end,
    created_at: end,
    updated_at: end,
  };
}

function onCreated(c: ConversationRecord, inbox: InboxRecord | undefined, out: Pending) {
  out.contributions.push(...spread(seriesOf(c, c.assignee_id), c.created_at, { cc: 1 }));
  out.contributions.push(...labelInboxes(reportLabels(c.labels), c.inbox_id, c.created_at, 1));
  out.contributions.push({
    series: keys.reportSeries.channel(inbox?.channel_type ?? 'unknown'),
    at: c.created_at,
    figures: { [STATUS_FIELD[c.status]]: 1 },
  });
  if (isUnattended(c)) out.unattended = { from: null, from_team: null, to: c.assignee_id ?? 0, team_id: c.team_id };
}

async function onUpdated(event: DomainEvent, c: ConversationRecord, inbox: InboxRecord | undefined, out: Pending) {
  const ch = event.changes;
  const before = <K extends keyof ConversationRecord>(k: K): ConversationRecord[K] =>
    k in ch ? (ch[k]![0] as ConversationRecord[K]) : c[k];
  const s = keys.reportSeries;
  const at = c.created_at;
  // The conversation's count follows its assignee, team and labels.
  if ('assignee_id' in ch) {
    const [a, b] = [before('assignee_id'), c.assignee_id];
    if (a) out.contributions.push({ series: s.agent(a), at, figures: { cc: -1 } });
    if (b) out.contributions.push({ series: s.agent(b), at, figures: { cc: 1 } });
  }
  if ('team_id' in ch) {
    const [a, b] = [before('team_id'), c.team_id];
    if (a) out.contributions.push({ series: s.team(a), at, figures: { cc: -1 } });
    if (b) out.contributions.push({ series: s.team(b), at, figures: { cc: 1 } });
  }
  if ('labels' in ch) {
    const [a, b] = [new Set(reportLabels(before('labels'))), new Set(reportLabels(c.labels))];
    const removed = [...a].filter((l) => !b.has(l));
    const added = [...b].filter((l) => !a.has(l));
    for (const l of removed) out.contributions.push({ series: s.label(l), at, figures: { cc: -1 } });
    for (const l of added) out.contributions.push({ series: s.label(l), at, figures: { cc: 1 } });
    out.contributions.push(...labelInboxes(removed, c.inbox_id, at, -1), ...labelInboxes(added, c.inbox_id, at, 1));
  }
  const previous = {
    status: before('status'),
    first_reply_created_at: before('first_reply_created_at'),
    waiting_since: before('waiting_since'),
  };
  if ('status' in ch) {
    const channel = s.channel(inbox?.channel_type ?? 'unknown');
    out.contributions.push({ series: channel, at, figures: { [STATUS_FIELD[previous.status]]: -1 } });
    out.contributions.push({ series: channel, at, figures: { [STATUS_FIELD[c.status]]: 1 } });
  }
  const from = isUnattended(previous) ? (before('assignee_id') ?? 0) : null;
  const to = isUnattended(c) ? (c.assignee_id ?? 0) : null;
  // A team change rewrites the item (it carries the team, for the live reports' team filter and grouping).
  if (from !== to || (to !== null && 'team_id' in ch))
    out.unattended = { from, from_team: before('team_id') ?? null, to, team_id: c.team_id ?? null };

  const firstReply = 'first_reply_created_at' in ch && previous.first_reply_created_at == null && c.first_reply_created_at != null;
  const replied = !firstReply && 'waiting_since' in ch && previous.waiting_since != null && c.waiting_since == null && !('status' in ch);
  const resolved = 'status' in ch && c.status === 'resolved';
  const opened = 'status' in ch && c.status === 'open';
  if (!firstReply && !replied && !resolved && !opened) return;

  const state: ConversationReportState = {
    ...((await reportState(c.account_id, c.id)) ?? {
      account_id: c.account_id,
      conversation_id: c.id,
      bot_handoff_at: null,
      last_resolved_at: null,
    }),
  };
  const end = Math.floor(c.updated_at);
  const reply = c.last_non_activity_message;
  const replier = reply && reply.message_type === 1 && reply.sender_type === 'User' ? reply.sender_id : null;
  const metric = (e: Omit<ReportingEventRecord, 'id'>, prefix: 'fr' | 'rs' | 'rt', agentId: number | null) =>
    out.contributions.push(
      ...spread(seriesOf(c, agentId), e.created_at, {
        [`${prefix}_n`]: 1,
        [`${prefix}_s`]: e.value,
        [`${prefix}_b`]: e.value_in_business_hours,
      }),
    );

  if (firstReply) {
    // Measured from the bot's handoff when there was one (Chatwoot's last_non_human_activity).
    const e = reportingEvent(
      'first_response',
      c,
      inbox,
      state.bot_handoff_at ?? c.created_at,
      c.first_reply_created_at!,
      replier ?? c.assignee_id,
    );
    out.events.push(e);
    metric(e, 'fr', e.user_id);
    // Its time bucket, on the inbox's items the figure already writes (first_response_time_distribution).
    out.contributions.push({ series: s.inbox(c.inbox_id), at: e.created_at, figures: { [firstResponseBucket(e.value)]: 1 } });
  }
  if (replied) {
    const e = reportingEvent('reply_time', c, inbox, previous.waiting_since!, reply?.created_at ?? end, replier ?? c.assignee_id);
    out.events.push(e);
    metric(e, 'rt', e.user_id);
  }
  if (resolved) {
    const e = reportingEvent('conversation_resolved', c, inbox, c.created_at, end, c.assignee_id);
    out.events.push(e);
    metric(e, 'rs', c.assignee_id);
    // Resolved with a bot in charge and no human reply: the bot resolved it.
    if (inbox?.agent_bot_id && c.first_reply_created_at == null) {
      out.events.push({ ...e, name: 'conversation_bot_resolved' });
      out.contributions.push(...spread(seriesOf(c, c.assignee_id), e.created_at, { br: 1 }));
    }
    state.last_resolved_at = end;
    out.state = state;
  }
  if (opened) {
    const reopened = state.last_resolved_at != null;
    out.events.push(
      reportingEvent('conversation_opened', c, inbox, reopened ? state.last_resolved_at! : c.created_at, end, c.assignee_id, !reopened),
    );
    if (previous.status === 'pending' && event.performedBy?.type === 'agent_bot' && state.bot_handoff_at == null) {
      const e = reportingEvent('conversation_bot_handoff', c, inbox, c.created_at, end, c.assignee_id);
      out.events.push(e);
      out.contributions.push(...spread(seriesOf(c, c.assignee_id), e.created_at, { bh: 1 }));
      state.bot_handoff_at = end;
      out.state = state;
    }
  }
}

function onMessage(event: DomainEvent, c: Dims, out: Pending) {
  const m = event.message!;
  if (m.message_type === 0) out.contributions.push(...spread(seriesOf(c, null), m.created_at, { im: 1 }));
  if (m.message_type === 1)
    out.contributions.push(...spread(seriesOf(c, m.sender_type === 'User' ? m.sender_id : null), m.created_at, { om: 1 }));
  // A CSAT survey sent (the responses' rate reads it), credited to the agent the survey names (docs/csat.md).
  if (m.message_type === 3 && m.content_type === 'input_csat') {
    const agent = m.content_attributes.assigned_agent_id;
    out.contributions.push(...spread(seriesOf(c, typeof agent === 'number' ? agent : null), m.created_at, { cs: 1 }));
  }
}

interface Batch {
  /** Per account: the facts, and the unattended changes in order. */
  accounts: Map<number, { writes: FactWrite[]; unattended: UnattendedChange[] }>;
  /** Report memory written by the batch's earlier events, by `<account>:<conversation>`. */
  states: Map<string, ConversationReportState>;
}
const pendingFacts = new AsyncLocalStorage<Batch>();

/** A conversation's report memory as the batch's earlier events left it, else as stored. */
async function reportState(accountId: number, conversationId: number) {
  return (
    pendingFacts.getStore()?.states.get(`${accountId}:${conversationId}`) ?? (await getConversationReportState(accountId, conversationId))
  );
}

/** Whether an account's facts go to the shards (accounts made since them; the dispatcher reads the account through its cache). */
const factsSharded = async (accountId: number) => !!(await getAccount(accountId))?.sharded_report_facts;

/** Writes what a batch collected: per account its facts, then its log (recordFacts). */
async function flush(batch: Batch): Promise<LoggedBatch[]> {
  const out: LoggedBatch[] = [];
  for (const [accountId, { writes, unattended }] of batch.accounts) out.push(await recordFacts(accountId, writes, unattended));
  batch.accounts.clear();
  return out;
}

/** Records one event's fact and unattended change: into the batch when there is one, else at once with its own log. */
async function record(accountId: number, write: FactWrite | undefined, change: UnattendedChange | undefined) {
  const batch = pendingFacts.getStore();
  if (!batch) {
    const logged = await recordFacts(accountId, write ? [write] : [], change ? [change] : []);
    await foldWhenDue([logged]);
    return;
  }
  const into = batch.accounts.get(accountId) ?? { writes: [], unattended: [] };
  batch.accounts.set(accountId, into);
  if (write) into.writes.push(write);
  if (change) into.unattended.push(change);
  if (write?.conversationState) batch.states.set(`${accountId}:${write.conversationState.conversation_id}`, write.conversationState);
}

/**
 * Runs a dispatcher batch with its report facts collected, then writes them (recordFacts: plain puts, one
 * log per account) and folds the accounts whose pending logs are due (foldWhenDue). The batch's later events
 * read the report memory its earlier events left. A failed write throws, so the batch returns to the queue;
 * redelivered events add nothing (their facts), or are taken over when their log was never written.
 */
export async function withReportBatch<T>(fn: () => Promise<T>): Promise<T> {
  const batch: Batch = { accounts: new Map(), states: new Map() };
  const result = await pendingFacts.run(batch, fn);
  const logged = await flush(batch);
  await foldWhenDue(logged);
  return result;
}

/** How many aggregate items one negation fact may touch (fixed chunks: a redelivered deletion makes the same facts). */
const NEGATION_ITEMS = 98;

/**
 * A deleted conversation leaves the reports, as in Chatwoot (its reporting events, messages and row are
 * destroyed): the negation of every fact recorded for it is added once (facts keyed by this event's id,
 * in deterministic chunks of at most 98 aggregate items each, logged and folded like any other), then its
 * reporting events and report memory are removed and its unattended item goes with the log. A redelivered
 * deletion finds its negation facts and adds nothing; the removals are idempotent. The rebuild sums the
 * negations too, so it agrees.
 */
async function onDeleted(event: DomainEvent, c: ConversationRecord) {
  const batch = pendingFacts.getStore();
  if (batch) {
    // The batch's earlier events are written first, so this conversation's are negated too.
    await foldWhenDue(await flush(batch));
    batch.states.delete(`${c.account_id}:${c.id}`);
  }
  const [stored, inbox] = await Promise.all([listConversationFacts(c.account_id, c.id), getInbox(c.account_id, c.inbox_id)]);
  const facts = stored.filter((f) => f.kind !== 'deletion');
  // A deleted inbox's conversations go with its purge, which removes the inbox's series whole: nothing is
  // negated there (a late negation would leave items behind it; the rebuild leaves such series out too).
  const goneSeries = inbox ? undefined : keys.reportSeries.inbox(c.inbox_id);
  const ordered = mergeContributions(
    facts.flatMap((f) => f.contributions ?? []).filter((x) => x.series !== goneSeries),
    -1,
  );
  const chunks: Contribution[][] = [];
  // Sized by hour items whatever the account's layout, so a redelivery after a rebuild makes the same chunks.
  for (const x of ordered) {
    const last = chunks.at(-1);
    if (last && aggregateAdds(c.account_id, { contributions: [...last, x] }).size <= NEGATION_ITEMS) last.push(x);
    else chunks.push([x]);
  }
  const sharded = await factsSharded(c.account_id);
  const negations: FactWrite[] = chunks.map((contributions, n) => ({
    sharded,
    fact: {
      id: `${event.id}#${n}`,
      account_id: c.account_id,
      conversation_id: c.id,
      contributions,
      created_at: event.at,
      kind: 'deletion',
    },
  }));
  const gone: UnattendedChange[] = isUnattended(c)
    ? [{ conversation_id: c.id, from: c.assignee_id ?? 0, from_team: c.team_id ?? null, to: null, team_id: null }]
    : [];
  const events = stored.filter((f) => f.type === 'reporting_event');
  // Its reporting events leave the account's listing with the log (folded items: by the fold that folds it).
  const removed = events.map((e) => ({ id: Number(e.id), created_at: Number(e.created_at) }));
  const logged = await recordFacts(c.account_id, negations, gone, undefined, removed);
  await removeConversationReportItems(c.account_id, c.id, events);
  await foldWhenDue([logged]);
  log.info('deleted conversation removed from reports', { eventId: event.id, conversationId: c.id, facts: facts.length });
}

/** Records what an event means for reports. `ctx`: the event's conversation, when it has one. */
export async function recordReports(event: DomainEvent, ctx: ConversationContext | undefined): Promise<void> {
  if (event.name === 'conversation_deleted') return onDeleted(event, event.conversation!);
  const out: Pending = { contributions: [], events: [] };
  let conversationId: number | null = null;
  if (event.name === 'conversation_created' || event.name === 'conversation_updated') {
    const c = event.conversation!;
    conversationId = c.id;
    const inbox = ctx?.refs.inboxes.get(c.inbox_id);
    if (event.name === 'conversation_created') onCreated(c, inbox, out);
    else await onUpdated(event, c, inbox, out);
  } else if (event.name === 'message_created' && event.message) {
    conversationId = event.message.conversation_id;
    onMessage(event, ctx?.conversation ?? { inbox_id: event.message.inbox_id, team_id: null, labels: [] }, out);
  } else {
    return;
  }
  // Unattended: a state change, logged with the batch (no fact needed: applying a state twice changes nothing).
  const change = out.unattended && conversationId != null ? { conversation_id: conversationId, ...out.unattended } : undefined;
  // The state item is written only when it changes (a resolution or a handoff), not on every reply.
  if (!out.contributions.length && !out.events.length && !out.state) {
    if (change) await record(event.accountId, undefined, change);
    return;
  }
  const fact = {
    id: event.id,
    account_id: event.accountId,
    conversation_id: conversationId,
    contributions: out.contributions,
    created_at: event.at,
  };
  const events: ReportingEventRecord[] = [];
  for (const e of out.events) events.push({ id: await nextId('reporting_event'), ...e });
  const write: FactWrite = { fact, reportingEvents: events, conversationState: out.state, sharded: await factsSharded(event.accountId) };
  await record(event.accountId, write, change);
  if (events.length) log.info('reporting events recorded', { eventId: event.id, names: events.map((e) => e.name) });
}
