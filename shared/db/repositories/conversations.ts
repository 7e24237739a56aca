import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, UpdateCommand, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { nextDenseId, nextDenseIds } from '../ids.ts';
import * as keys from '../keys.ts';
import { INDEXES, SLIM_ACTIVITY_INDEX } from '../table.ts';
import { ConflictError, del, put, transact, type TxItem } from '../transact.ts';
import { STATUSES, type ConversationRecord } from '#shared/model/conversations.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import { messageItem, putMessage } from './messages.ts';
import { tailItem } from '../search-tail.ts';
import { batchWriteAll, getItem, getMany, queryPrefix, record } from './common.ts';
import { clearMarks, counterChanges, counterRemoval, countCreation, type CounterKey, type CreationMark } from './counts.ts';
import { log } from '#shared/log.ts';
import { stateChange, stateRemoval } from './conversation-state.ts';

// Access patterns of conversations (AP60-AP69). A conversation and its messages share one partition,
// so the stream hands their changes to the event pipeline in order.

/**
 * The stored item. The last message is stored once: when it is also the last non-activity message (the
 * usual case) that copy is a flag, which keeps the item near 1 KB, and every message write costs its
 * size in write units.
 */
// The copy of the last message drops what it shares with the conversation and what is at its default,
// so the conversation item stays near 1 KB (one write unit per change).
const MESSAGE_DEFAULTS: Partial<MessageRecord> = {
  content_type: 'text',
  status: 'sent',
  private: false,
  source_id: null,
  content_attributes: {},
  external_source_ids: {},
  additional_attributes: {},
  sentiment: {},
  attachments: [],
};
const isDefault = (k: string, v: unknown) =>
  k in MESSAGE_DEFAULTS && JSON.stringify(MESSAGE_DEFAULTS[k as keyof MessageRecord]) === JSON.stringify(v);

function slimMessage(m: MessageRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(m)) {
    if (k === 'account_id' || k === 'conversation_id' || k === 'inbox_id' || isDefault(k, v)) continue;
    if (k === 'processed_message_content' && v === m.content) continue;
    if (k === 'updated_at' && v === m.created_at) continue;
    out[k] = v;
  }
  return out;
}

function fullMessage(slim: Record<string, unknown> | null, c: ConversationRecord): MessageRecord | null {
  if (!slim) return null;
  if ('account_id' in slim) return slim as unknown as MessageRecord;
  const m = { ...MESSAGE_DEFAULTS, ...slim } as MessageRecord;
  return {
    ...m,
    account_id: c.account_id,
    inbox_id: c.inbox_id,
    conversation_id: c.id,
    processed_message_content: 'processed_message_content' in slim ? m.processed_message_content : m.content,
    updated_at: 'updated_at' in slim ? m.updated_at : m.created_at,
  };
}

/**
 * The stored item. The last message is stored once and slim: when it is also the last non-activity
 * message (the usual case) that copy is a flag.
 */
export const conversationItem = (c: ConversationRecord) => {
  const same = c.last_non_activity_message !== null && c.last_non_activity_message.id === c.last_message?.id;
  return {
    ...keys.conversation(c.account_id, c.id),
    ...keys.conversationIndex(c),
    ...keys.accountConversationIndex(c),
    type: 'conversation',
    ...c,
    last_message: c.last_message && slimMessage(c.last_message),
    last_non_activity_message: same || !c.last_non_activity_message ? null : slimMessage(c.last_non_activity_message),
    ...(same ? { last_message_is_chat: true } : {}),
  };
};

/** A stored conversation item (or stream image) as the record (see conversationItem). */
export function conversationOf(item: Record<string, unknown> | undefined): ConversationRecord | undefined {
  const r = record<ConversationRecord & { last_message_is_chat?: boolean }>(item);
  if (!r) return undefined;
  const { last_message_is_chat: chat, ...rest } = r;
  const last = fullMessage(rest.last_message as unknown as Record<string, unknown> | null, rest);
  const chatCopy = chat ? last : fullMessage(rest.last_non_activity_message as unknown as Record<string, unknown> | null, rest);
  return { ...rest, last_message: last, last_non_activity_message: chatCopy };
}

/** The next display id of an account (dense per-account sequence: 1, 2, 3, …). */
export const nextDisplayId = (accountId: number) => nextDenseId(keys.conversationSequence(accountId));
/** The next `n` display ids of an account, in one reservation (a loader's; the first is returned, the rest follow it). */
export const nextDisplayIds = (accountId: number, n: number) => nextDenseIds(keys.conversationSequence(accountId), n);

/** AP60: a conversation by its display id. */
export const getConversation = async (accountId: number, displayId: number, consistent = false) =>
  conversationOf(await getItem<Record<string, unknown>>(keys.conversation(accountId, displayId), consistent));

/** The highest display id given out in an account (its dense sequence; 0 before the first conversation). */
export const lastDisplayId = async (accountId: number) =>
  Number((await getItem<{ value?: number }>(keys.sequence(keys.conversationSequence(accountId))))?.value ?? 0);

/** AP61: conversations by display id (BatchGet), in the order asked. */
export const getConversations = async (accountId: number, displayIds: number[]) =>
  (await getMany<Record<string, unknown>>(displayIds.map((id) => keys.conversation(accountId, id)))).map(conversationOf);

/**
 * What lists filter, count and sort a conversation by. The activity indexes (gsi3w, gsi4) hold whole
 * conversations, so what they yield is the whole record (`uuid` in it); a row read from the slim index `gsi3`
 * while `gsi3w` is being built holds only these fields.
 */
export type ConversationRow = Pick<
  ConversationRecord,
  | 'id'
  | 'account_id'
  | 'inbox_id'
  | 'contact_id'
  | 'status'
  | 'assignee_id'
  | 'assignee_agent_bot_id'
  | 'team_id'
  | 'priority'
  | 'labels'
  | 'created_at'
  | 'last_activity_at'
  | 'waiting_since'
>;

/** Whether a row is the whole conversation (every row is, but one read from the slim index during an upgrade). */
export const isWhole = (row: ConversationRow): row is ConversationRecord => 'uuid' in row;

/** Newest activity first, then highest display id: the order of the activity index. */
export const byActivityDesc = (a: ConversationRow, b: ConversationRow) => b.last_activity_at - a.last_activity_at || b.id - a.id;

/** An item of the inbox activity index as a row: the whole record, or the slim row of `gsi3` (see activityQuery). */
const rowOf = (item: Record<string, unknown>): ConversationRow => {
  if ('uuid' in item) return conversationOf(item)!;
  const row = record<ConversationRow>(item)!;
  return { ...row, labels: row.labels ?? [] };
};

/** Until when (ms) this container reads the slim `gsi3` because `gsi3w` refused a Query (being built). */
let slimUntil = 0;

/** DynamoDB's refusal of a Query on an index still being built (or not there yet). */
const indexUnavailable = (e: unknown) =>
  e instanceof Error && e.name === 'ValidationException' && /backfilling|specified index|not active/i.test(e.message);

/**
 * A Query of the inbox activity index (AP63, AP79, a purge's walk). While a stack upgrade builds `gsi3w`
 * DynamoDB refuses its Queries; the slim `gsi3` it replaces (kept for that deployment) answers them then, for a
 * minute at a time per container, with rows the page then reads by key (docs/deploy.md#upgrading-to-whole-copies-in-gsi3w).
 */
export async function activityQuery(input: Omit<QueryCommandInput, 'TableName' | 'IndexName'>): Promise<QueryCommandOutput> {
  const send = (IndexName: string) => db().send(new QueryCommand({ ...input, TableName: tableName(), IndexName }));
  if (Date.now() < slimUntil) return send(SLIM_ACTIVITY_INDEX.name);
  try {
    return await send(INDEXES.gsi3.name);
  } catch (e) {
    if (!indexUnavailable(e)) throw e;
    slimUntil = Date.now() + 60_000;
    log.warn('activity index gsi3w not readable yet; reading gsi3', { error: (e as Error).message });
    return send(SLIM_ACTIVITY_INDEX.name);
  }
}

/**
 * Reads an index partition backwards (newest activity first; forwards with `oldestFirst`), lazily: `firstChunk`
 * items, then `nextChunk` at a time.
 */
async function* newestFirst(
  ix: { name: string; pk: string },
  partition: string,
  firstChunk: number,
  nextChunk: number,
  oldestFirst = false,
): AsyncGenerator<Record<string, unknown>> {
  let start: QueryCommandInput['ExclusiveStartKey'];
  let limit = Math.min(Math.max(firstChunk, 1), 500);
  do {
    const input = {
      KeyConditionExpression: '#p = :p',
      ExpressionAttributeNames: { '#p': ix.pk },
      ExpressionAttributeValues: { ':p': partition },
      ScanIndexForward: oldestFirst,
      Limit: limit,
      ExclusiveStartKey: start,
    };
    const out =
      ix.name === INDEXES.gsi3.name
        ? await activityQuery(input)
        : await db().send(new QueryCommand({ ...input, TableName: tableName(), IndexName: ix.name }));
    yield* out.Items ?? [];
    start = out.LastEvaluatedKey;
    limit = Math.min(Math.max(nextChunk, 1), 500);
  } while (start);
}

/**
 * AP63: the conversations of one status in one inbox, newest activity first (oldest first with `oldestFirst`;
 * gsi3w, whole items, read lazily): a page of 25 conversations of ~1 KB is ~3.5 RCU and needs no read by key.
 */
export async function* conversationsByInboxStatus(
  accountId: number,
  inboxId: number,
  status: string,
  firstChunk: number,
  nextChunk = 500,
  oldestFirst = false,
): AsyncGenerator<ConversationRow> {
  const partition = keys.conversationsByInboxStatus(accountId, inboxId, status).gsi3pk;
  for await (const item of newestFirst(INDEXES.gsi3, partition, firstChunk, nextChunk, oldestFirst)) yield rowOf(item);
}

/**
 * AP62: the conversations of one status in one partition of the account (a team's, or a shard of those without a
 * team: keys.accountListPart), newest activity first (oldest first with `oldestFirst`; gsi4, whole items, read
 * lazily): a page of 25 conversations of ~1 KB is ~3.5 RCU, whatever the account's inboxes.
 */
export async function* conversationsByAccountStatus(
  accountId: number,
  status: string,
  part: keys.AccountListPart,
  firstChunk: number,
  nextChunk = 100,
  oldestFirst = false,
): AsyncGenerator<ConversationRecord> {
  const partition = keys.conversationsByAccountStatus(accountId, status, part).gsi4pk;
  for await (const item of newestFirst(INDEXES.gsi4, partition, firstChunk, nextChunk, oldestFirst)) yield conversationOf(item)!;
}

/**
 * For an account made before the team partitions of the account index (AP62, `keys.accountListPart`): moves the copies
 * of its conversations with a team that a writer of the older version left in a shard to their team's partition (one
 * walk of the shards, each move conditioned on the copy still being there and the team unchanged, so a concurrent
 * writer wins). Answers how many moved; the caller then marks the account (`team_list_partitions`).
 */
export async function moveToTeamPartitions(accountId: number): Promise<number> {
  const ix = INDEXES.gsi4;
  let moved = 0;
  for (const status of STATUSES) {
    for (let shard = 0; shard < keys.LIST_SHARDS; shard++) {
      const partition = keys.conversationsByAccountStatus(accountId, status, shard).gsi4pk;
      let start: QueryCommandInput['ExclusiveStartKey'];
      do {
        const out = await db().send(
          new QueryCommand({
            TableName: tableName(),
            IndexName: ix.name,
            KeyConditionExpression: '#p = :p',
            FilterExpression: 'attribute_type(team_id, :n)',
            ProjectionExpression: 'pk, sk, id, team_id',
            ExpressionAttributeNames: { '#p': ix.pk },
            ExpressionAttributeValues: { ':p': partition, ':n': 'N' },
            ExclusiveStartKey: start,
          }),
        );
        for (const item of out.Items ?? []) {
          const to = keys.conversationsByAccountStatus(
            accountId,
            status,
            keys.accountListPart({ id: Number(item.id), team_id: Number(item.team_id) }),
          );
          try {
            await db().send(
              new UpdateCommand({
                TableName: tableName(),
                Key: { pk: item.pk, sk: item.sk },
                UpdateExpression: 'SET #p = :to',
                ConditionExpression: '#p = :from AND team_id = :team',
                ExpressionAttributeNames: { '#p': ix.pk },
                ExpressionAttributeValues: { ':to': to.gsi4pk, ':from': partition, ':team': item.team_id },
              }),
            );
            moved++;
          } catch (err) {
            if (!(err instanceof ConditionalCheckFailedException)) throw err;
          }
        }
        start = out.LastEvaluatedKey;
      } while (start);
    }
  }
  return moved;
}

/**
 * AP79: the conversations of one status in one inbox at or after (activity second, display id) in the index's
 * order (gsi3w, `gsi3sk >= <since>#<id>`), newest first: what a `q` list page needs once it knows how
 * recent its page's conversations are.
 */
export async function conversationsActiveSince(
  accountId: number,
  inboxId: number,
  status: string,
  since: number,
  sinceId?: number,
): Promise<ConversationRow[]> {
  const ix = INDEXES.gsi3;
  const items: Record<string, unknown>[] = [];
  let start: QueryCommandInput['ExclusiveStartKey'];
  do {
    const out = await activityQuery({
      KeyConditionExpression: '#p = :p AND #s >= :lo',
      ExpressionAttributeNames: { '#p': ix.pk, '#s': ix.sk },
      ExpressionAttributeValues: {
        ':p': keys.conversationsByInboxStatus(accountId, inboxId, status).gsi3pk,
        ':lo': keys.activitySince(since, sinceId),
      },
      ScanIndexForward: false,
      ExclusiveStartKey: start,
    });
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items.map(rowOf);
}

/** Oldest activity first, then lowest display id: the activity index read forwards. */
export const byActivityAsc = (a: ConversationRow, b: ConversationRow) => -byActivityDesc(a, b);

/** Merges streams that are each in `order` (`byActivityDesc` or `byActivityAsc`) into one such stream (reads stay lazy). */
export async function* mergeNewestFirst(
  streams: AsyncGenerator<ConversationRow>[],
  order: (a: ConversationRow, b: ConversationRow) => number = byActivityDesc,
): AsyncGenerator<ConversationRow> {
  const heads = await Promise.all(streams.map((s) => s.next()));
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i];
      if (h.done) continue;
      if (best < 0 || order(h.value, heads[best].value as ConversationRow) < 0) best = i;
    }
    if (best < 0) return;
    yield heads[best].value as ConversationRow;
    heads[best] = await streams[best].next();
  }
}

export interface ContactConversationLink {
  account_id: number;
  contact_id: number;
  conversation_id: number;
  inbox_id: number;
  source_id: string;
}

/** AP64: the conversations of a contact (display id, inbox, contact inbox), oldest first. */
export async function listContactConversationLinks(accountId: number, contactId: number): Promise<ContactConversationLink[]> {
  const p = keys.contactConversations(accountId, contactId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<ContactConversationLink>(i)!);
}

/** AP65: display ids of the conversations that carry a label. */
export async function listLabelledConversationIds(accountId: number, label: string): Promise<number[]> {
  const p = keys.conversationsWithLabel(accountId, label);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => Number(i.conversation_id));
}

const labelItem = (accountId: number, label: string, displayId: number) => ({
  ...keys.conversationLabel(accountId, label, displayId),
  type: 'conversation_label',
  account_id: accountId,
  label,
  conversation_id: displayId,
});

export interface ConversationWrite {
  /** Messages the change adds, oldest first. */
  messages?: MessageRecord[];
  /** Stored messages the change rewrites (an edit of the message the conversation shows as its last). */
  rewrites?: MessageRecord[];
  /** The contact the conversation leaves (a contact merge): its link moves to `next.contact_id`. */
  leavesContact?: number;
  /** Ids of `messages` an earlier attempt of the same change already wrote (filled in as they are written). */
  staged?: Set<number>;
}

const versionCondition = (version: number) => ({ expression: '#v = :v', names: { '#v': 'version' }, values: { ':v': version } });

function rethrowCollision(err: unknown): never {
  // Another transaction touched one of the items (typically a shared counter) at the same moment.
  if (err instanceof TransactionCanceledException && err.CancellationReasons?.some((r) => r.Code === 'TransactionConflict')) {
    throw new ConflictError(-1);
  }
  throw err;
}

const contactLinkItem = (link: ContactConversationLink) => ({
  ...keys.contactConversation(link.account_id, link.contact_id, link.conversation_id),
  type: 'contact_conversation',
  ...link,
});

/** What else a change writes in the conversation's transaction: rewritten messages, a moved contact link. */
function companions(next: ConversationRecord, write: ConversationWrite): TxItem[] {
  const items: TxItem[] = (write.rewrites ?? []).map((m) => putMessage(m));
  if (write.leavesContact !== undefined && write.leavesContact !== next.contact_id) {
    const { account_id, id, contact_id, inbox_id, source_id } = next;
    items.push(
      { item: put(contactLinkItem({ account_id, contact_id, conversation_id: id, inbox_id, source_id })) },
      { item: del(keys.contactConversation(account_id, write.leavesContact, id)) },
    );
  }
  return items;
}

/**
 * Writes a conversation change with everything that must agree with it, conditioned on the `version`
 * read (`insertConversation`: on its absence); a concurrent writer makes it throw ConflictError.
 *
 * What needs a transaction gets one: the counters of its (inbox, team, status, assignee) combination,
 * label memberships, rewritten messages, a moved contact link, and activity messages. Three writes do not, because nothing shows them until
 * the conversation write lands, or because a later write repairs them:
 * - a new conversation's contact link and first message are written first (the contact's list and the
 *   message list both need the conversation item, so a crash before it leaves them unreachable);
 * - the one chat message a change adds to an existing conversation (POST message) is written first, then
 *   the conversation on its own. A crash in between leaves the message listed while the conversation's
 *   last message, activity time, waiting time and unread count miss it: the next message of the
 *   conversation sets all but the unread count, which the next `update_last_seen` resets;
 * - a new conversation with nothing else to write alongside (no state item, labels or companions) adds its
 *   counter with a creation mark, then is written on its own (`createPlainly`). A crash in between leaves
 *   the count one too high until a later creation on that counter settles the mark (counts.ts).
 */
export const saveConversation = (prev: ConversationRecord, next: ConversationRecord, write: ConversationWrite = {}) =>
  writeConversation(prev, next, write);

/** A new conversation, written as `saveConversation` describes (conditioned on its absence). */
export const insertConversation = (next: ConversationRecord, write: ConversationWrite = {}) =>
  writeConversation(undefined, next, write, createPlainly);

/**
 * The writes of both: `plainly` (creations only) writes a new conversation that has nothing else to write alongside;
 * passed in, so that a route that only changes conversations does not carry the creation marks' code.
 */
async function writeConversation(
  prev: ConversationRecord | undefined,
  next: ConversationRecord,
  write: ConversationWrite,
  plainly?: (next: ConversationRecord) => Promise<void>,
) {
  const a = next.account_id;
  const messages = write.messages ?? [];
  const staged = write.staged ?? new Set<number>();
  const counters = counterChanges(a, prev, next);
  const labels: TxItem[] = [];
  const before = new Set(prev?.labels ?? []);
  const after = new Set(next.labels);
  for (const l of after) if (!before.has(l)) labels.push({ item: put(labelItem(a, l, next.id)) });
  for (const l of before) if (!after.has(l)) labels.push({ item: del(keys.conversationLabel(a, l, next.id)) });
  const chat = messages.length === 1 && messages[0].message_type !== 2;
  const extra = companions(next, write);
  const alone = !!prev && !counters.length && !labels.length && !extra.length && (chat || !messages.length);

  const ahead: Record<string, unknown>[] = [];
  if (!prev) {
    const link: ContactConversationLink = {
      account_id: a,
      contact_id: next.contact_id,
      conversation_id: next.id,
      inbox_id: next.inbox_id,
      source_id: next.source_id,
    };
    ahead.push(contactLinkItem(link));
  }
  // A new searchable message takes its `q` tail item along (shared/db/search-tail.ts).
  const tails = (ms: MessageRecord[]) => ms.map(tailItem).filter((x): x is Record<string, unknown> => !!x);
  if (!prev || alone) for (const m of messages) if (!staged.has(m.id)) ahead.push(messageItem(m), ...tails([m]));
  if (ahead.length) {
    await batchWriteAll(ahead.map((Item) => ({ PutRequest: { Item } })));
    for (const m of messages) staged.add(m.id);
  }

  const state = stateChange(a, prev, next);
  if (!prev && plainly && !state && !labels.length && !extra.length) return plainly(next);

  if (alone) {
    try {
      await db().send(
        new PutCommand({
          TableName: tableName(),
          Item: conversationItem(next),
          ConditionExpression: '#v = :v',
          ExpressionAttributeNames: { '#v': 'version' },
          ExpressionAttributeValues: { ':v': prev!.version },
        }),
      );
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) throw new ConflictError(0);
      throw err;
    }
    return;
  }
  const items: TxItem[] = [
    {
      item: prev
        ? put(conversationItem(next), { condition: versionCondition(prev.version) })
        : put(conversationItem(next), { ifNew: true }),
      onConflict: () => new ConflictError(0),
    },
    ...counters,
    ...(state ? [state] : []),
    ...labels,
    ...(prev ? messages.filter((m) => !staged.has(m.id)).map((m) => putMessage(m, { ifNew: true })) : []),
    ...(prev ? tails(messages.filter((m) => !staged.has(m.id))).map((item) => ({ item: put(item) })) : []),
    ...extra,
  ];
  try {
    await transact(items);
  } catch (err) {
    rethrowCollision(err);
  }
}

/**
 * The writes of a new conversation holding `messages` (oldest first, already applied to it), as
 * `insertConversation` makes them, for a loader that writes many at once (the bench's scale part: it puts the items
 * by BatchWrite and sums the counter updates of a combination): the contact link, each message with its `q` tail
 * item, and the conversation (with its activity-index keys); then its counter and state updates (TxItem updates).
 * No creation marks: the loader's counters are written whole.
 */
export function newConversationWrites(
  next: ConversationRecord,
  messages: MessageRecord[],
): { puts: Record<string, unknown>[]; updates: TxItem[] } {
  const { account_id, id, contact_id, inbox_id, source_id } = next;
  const state = stateChange(account_id, undefined, next);
  return {
    puts: [
      contactLinkItem({ account_id, contact_id, conversation_id: id, inbox_id, source_id }),
      ...messages.flatMap((m) => [messageItem(m), ...[tailItem(m)].filter((x): x is Record<string, unknown> => !!x)]),
      conversationItem(next),
    ],
    updates: [...counterChanges(account_id, undefined, next), ...(state ? [state] : [])],
  };
}

// A plain creation's counter carries a creation mark until settled (counts.ts): a creation settles its
// counter's marks once it holds SETTLE_AT of them (then every fourth creation, so concurrent creators seldom
// settle the same marks) or one older than SETTLE_STALE_S. A mark whose conversation is still missing
// LOST_AFTER_S after it was counted belongs to a creation that never wrote it: no function runs that long
// (Lambda's limit is 15 minutes), so it will not be written.
const SETTLE_AT = 16;
const SETTLE_STALE_S = 86_400;
const LOST_AFTER_S = 900;

/**
 * A new conversation whose only companion is its counter (no state item, labels or companions): the counter
 * with the creation mark, then the conversation on its own (2 write units fewer than a transaction of the two).
 */
async function createPlainly(next: ConversationRecord): Promise<void> {
  const t = Math.floor(Date.now() / 1000);
  const marks = await countCreation(next.account_id, next, t);
  try {
    await db().send(
      new PutCommand({ TableName: tableName(), Item: conversationItem(next), ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  } catch (err) {
    // The item is there when an earlier attempt of this same put landed and only its answer was lost.
    if (!(err instanceof ConditionalCheckFailedException) || (await getConversation(next.account_id, next.id, true))?.uuid !== next.uuid)
      throw err;
  }
  // The conversation is written: a failed settlement is left to the next creation, never the caller's error.
  await Promise.all(
    marks.map(({ counter, marks: m }) =>
      settleCreations(next, counter, m, t).catch((error) =>
        log.warn('conversation counter marks not settled', { accountId: next.account_id, error: String(error) }),
      ),
    ),
  );
}

/** Settles a counter's creation marks when due (above); `marks` were read with `c`'s creation at `t`. */
async function settleCreations(c: ConversationRecord, counter: CounterKey, marks: CreationMark[], t: number): Promise<void> {
  const due = (marks.length >= SETTLE_AT && marks.length % 4 === 0) || marks.some((m) => t - m.at > SETTLE_STALE_S);
  if (!due) return;
  const found = await getMany<Record<string, unknown>>(marks.map((m) => keys.conversation(c.account_id, m.id)));
  const written = marks.filter((_, i) => found[i]).map((m) => m.id);
  const lost = marks.filter((m, i) => !found[i] && t - m.at > LOST_AFTER_S).map((m) => m.id);
  await clearMarks(counter, written, lost);
}

/**
 * Removes a conversation with its counter share, label memberships and contact link in one transaction
 * (conditioned on the version read), then its messages. Without the conversation item the messages are
 * unreachable, so a failure in between leaves nothing visible. Answers the messages removed (their files
 * are the caller's to delete).
 */
export async function deleteConversation(c: ConversationRecord): Promise<MessageRecord[]> {
  const a = c.account_id;
  await transact([
    {
      item: del(keys.conversation(a, c.id), { expression: '#v = :v', names: { '#v': 'version' }, values: { ':v': c.version } }),
      onConflict: () => new ConflictError(0),
    },
    ...counterRemoval(a, c),
    stateRemoval(a, c.id),
    ...c.labels.map((l) => ({ item: del(keys.conversationLabel(a, l, c.id)) })),
    { item: del(keys.contactConversation(a, c.contact_id, c.id)) },
  ]);
  const p = keys.messagesPrefix(a, c.id);
  const participants = keys.conversationParticipants(a, c.id);
  const messages = [
    ...(await queryPrefix({ pk: p.pk }, p.skPrefix)),
    ...(await queryPrefix({ pk: participants.pk }, participants.skPrefix)),
  ];
  for (let i = 0; i < messages.length; i += 100) {
    await transact(messages.slice(i, i + 100).map((m) => ({ item: del({ pk: String(m.pk), sk: String(m.sk) }) })));
  }
  return messages
    .filter((m) => String(m.sk).startsWith(p.skPrefix))
    .map((m) => record<MessageRecord>(m))
    .filter((m): m is MessageRecord => !!m);
}
