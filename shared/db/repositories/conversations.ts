import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { nextDenseId } from '../ids.ts';
import { keys } from '../keys.ts';
import { INDEXES } from '../table.ts';
import { ConflictError, del, put, transact, type TxItem } from '../transact.ts';
import type { ConversationRecord } from '../../domain/conversations/model.ts';
import { getItem, getMany, queryPrefix, record } from './common.ts';
import { counterChanges, counterRemoval } from './counts.ts';

// Access patterns of conversations (AP60-AP69). A conversation and its messages share one partition,
// so the stream hands their changes to the event pipeline in order.

export const conversationItem = (c: ConversationRecord) => ({
  ...keys.conversation(c.account_id, c.id),
  ...keys.conversationIndex(c),
  type: 'conversation',
  ...c,
});

/** The next display id of an account (dense per-account sequence: 1, 2, 3, …). */
export const nextDisplayId = (accountId: number) => nextDenseId(keys.conversationSequence(accountId));

/** AP60: a conversation by its display id. */
export const getConversation = (accountId: number, displayId: number, consistent = false) =>
  getItem<ConversationRecord>(keys.conversation(accountId, displayId), consistent);

/** AP61: conversations by display id (BatchGet), in the order asked. */
export const getConversations = (accountId: number, displayIds: number[]) =>
  getMany<ConversationRecord>(displayIds.map((id) => keys.conversation(accountId, id)));

/** Newest activity first, then highest display id: the order of both list indexes. */
export const byActivityDesc = (a: ConversationRecord, b: ConversationRecord) =>
  b.last_activity_at - a.last_activity_at || b.id - a.id;

async function* newestFirst(index: 'gsi1' | 'gsi2', partition: string, firstChunk: number): AsyncGenerator<ConversationRecord> {
  const ix = INDEXES[index];
  let start: QueryCommandInput['ExclusiveStartKey'];
  let limit = Math.min(Math.max(firstChunk, 1), 200);
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: ix.name,
        KeyConditionExpression: '#p = :p',
        ExpressionAttributeNames: { '#p': ix.pk },
        ExpressionAttributeValues: { ':p': partition },
        ScanIndexForward: false,
        Limit: limit,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) yield record<ConversationRecord>(item)!;
    start = out.LastEvaluatedKey;
    limit = 100;
  } while (start);
}

/** AP62: conversations of one status in the account, newest activity first (gsi1), read lazily. */
export function conversationsByStatus(accountId: number, status: string, firstChunk: number) {
  return newestFirst('gsi1', keys.conversationsByStatus(accountId, status).gsi1pk, firstChunk);
}

/** AP63: conversations of one status in one inbox, newest activity first (gsi2), read lazily. */
export function conversationsByInboxStatus(accountId: number, inboxId: number, status: string, firstChunk: number) {
  return newestFirst('gsi2', keys.conversationsByInboxStatus(accountId, inboxId, status).gsi2pk, firstChunk);
}

/** Merges streams that are each in `byActivityDesc` order into one such stream (reads stay lazy). */
export async function* mergeNewestFirst(streams: AsyncGenerator<ConversationRecord>[]): AsyncGenerator<ConversationRecord> {
  const heads = await Promise.all(streams.map((s) => s.next()));
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i];
      if (h.done) continue;
      if (best < 0 || byActivityDesc(h.value, heads[best].value as ConversationRecord) < 0) best = i;
    }
    if (best < 0) return;
    yield heads[best].value as ConversationRecord;
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

/**
 * Writes a conversation change in one transaction with everything that must agree with it: the
 * counters of its (inbox, team, status, assignee) combination, its label memberships, the contact
 * link on creation, and `extra` (e.g. the message that caused it). Conditioned on the `version` read
 * (or on absence when `prev` is undefined); a concurrent writer makes it throw ConflictError.
 */
export async function saveConversation(prev: ConversationRecord | undefined, next: ConversationRecord, extra: TxItem[] = []) {
  const a = next.account_id;
  const items: TxItem[] = [
    {
      item: prev
        ? put(conversationItem(next), { condition: { expression: '#v = :v', names: { '#v': 'version' }, values: { ':v': prev.version } } })
        : put(conversationItem(next), { ifNew: true }),
      onConflict: () => new ConflictError(0),
    },
    ...counterChanges(a, prev, next),
  ];
  const before = new Set(prev?.labels ?? []);
  const after = new Set(next.labels);
  for (const l of after) if (!before.has(l)) items.push({ item: put(labelItem(a, l, next.id)) });
  for (const l of before) if (!after.has(l)) items.push({ item: del(keys.conversationLabel(a, l, next.id)) });
  if (!prev) {
    const link: ContactConversationLink = {
      account_id: a,
      contact_id: next.contact_id,
      conversation_id: next.id,
      inbox_id: next.inbox_id,
      source_id: next.source_id,
    };
    items.push({ item: put({ ...keys.contactConversation(a, next.contact_id, next.id), type: 'contact_conversation', ...link }) });
  }
  items.push(...extra);
  try {
    await transact(items);
  } catch (err) {
    // Another transaction touched one of the items (typically a shared counter) at the same moment.
    if (err instanceof TransactionCanceledException && err.CancellationReasons?.some((r) => r.Code === 'TransactionConflict')) {
      throw new ConflictError(-1);
    }
    throw err;
  }
}

/**
 * Removes a conversation with its counter share, label memberships and contact link in one transaction
 * (conditioned on the version read), then its messages. Without the conversation item the messages are
 * unreachable, so a failure in between leaves nothing visible.
 */
export async function deleteConversation(c: ConversationRecord): Promise<void> {
  const a = c.account_id;
  await transact([
    {
      item: del(keys.conversation(a, c.id), { expression: '#v = :v', names: { '#v': 'version' }, values: { ':v': c.version } }),
      onConflict: () => new ConflictError(0),
    },
    counterRemoval(a, c),
    ...c.labels.map((l) => ({ item: del(keys.conversationLabel(a, l, c.id)) })),
    { item: del(keys.contactConversation(a, c.contact_id, c.id)) },
  ]);
  const p = keys.messagesPrefix(a, c.id);
  const participants = keys.conversationParticipants(a, c.id);
  const messages = [...(await queryPrefix({ pk: p.pk }, p.skPrefix)), ...(await queryPrefix({ pk: participants.pk }, participants.skPrefix))];
  for (let i = 0; i < messages.length; i += 100) {
    await transact(messages.slice(i, i + 100).map((m) => ({ item: del({ pk: String(m.pk), sk: String(m.sk) }) })));
  }
}
