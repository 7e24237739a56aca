import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { keys } from '../keys.ts';
import type { TxItem } from '../transact.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import { queryItems, record } from './common.ts';

// Conversation counters: one item per (inbox, team, status, assignee) combination in use, kept in the
// same transaction as every conversation change but a plain creation (below), so `/conversations/meta`
// reads the combinations in use and never the conversations. A bot assignee counts as unassigned
// (docs/chatwoot.md#lists-counts-search-and-filters), so it is no part of the combination.

export interface CounterRecord {
  account_id: number;
  inbox_id: number;
  team_id: number | null;
  status: string;
  assignee_id: number | null;
  count: number;
}

type Combination = Pick<ConversationRecord, 'inbox_id' | 'team_id' | 'status' | 'assignee_id'>;
type Counted = Combination & Pick<ConversationRecord, 'id'>;

const same = (a: Combination, b: Combination) =>
  a.inbox_id === b.inbox_id && a.team_id === b.team_id && a.status === b.status && a.assignee_id === b.assignee_id;

// A new conversation's counter is not in a transaction with it (2 write units instead of 4): the counter is
// added first together with a creation mark `c<display id>` (the time, seconds), then the conversation is
// written. The mark says "counted, conversation maybe not written yet" and leaves with the conversation's
// first change of combination or its deletion (the same update that takes it off this counter), or when a
// later creation settles the marks of its counter (conversations.ts `settleCreations`): the marks of
// conversations that exist go, and a mark whose conversation is still missing long after any request could
// have written it takes its count back. So a crash between the two writes leaves the count one too high
// until that settlement, and never counts twice: every removal is conditioned on the mark being there.
const MARK = /^c(\d+)$/;
const markName = (id: number) => `c${id}`;

export interface CreationMark {
  id: number;
  /** When it was counted (seconds). */
  at: number;
}

const identity = (accountId: number, c: Combination) => ({
  set: '#t = :t, account_id = :a, inbox_id = :i, team_id = :tm, #s = :s, assignee_id = :u',
  names: { '#n': 'count', '#t': 'type', '#s': 'status' },
  values: { ':t': 'conversation_count', ':a': accountId, ':i': c.inbox_id, ':tm': c.team_id, ':s': c.status, ':u': c.assignee_id },
});

function counterUpdate(accountId: number, c: Counted, delta: number): TxItem {
  const id = identity(accountId, c);
  // Leaving a counter takes the conversation's creation mark along if it is still there (no-op otherwise).
  const leaving = delta < 0;
  return {
    item: {
      Update: {
        TableName: '',
        Key: keys.conversationCounter(accountId, c),
        UpdateExpression: `ADD #n :d SET ${id.set}${leaving ? ' REMOVE #m' : ''}`,
        ExpressionAttributeNames: { ...id.names, ...(leaving ? { '#m': markName(c.id) } : {}) },
        ExpressionAttributeValues: { ':d': delta, ...id.values },
      },
    },
  };
}

/** The counter updates a conversation change needs (none when its combination stays the same). */
export function counterChanges(accountId: number, prev: Counted | undefined, next: Counted): TxItem[] {
  if (prev && same(prev, next)) return [];
  return [...(prev ? [counterUpdate(accountId, prev, -1)] : []), counterUpdate(accountId, next, 1)];
}

/** The counter update of a conversation that goes away. */
export const counterRemoval = (accountId: number, c: Counted): TxItem => counterUpdate(accountId, c, -1);

/** The creation marks of a counter item. */
export const marksOf = (item: Record<string, unknown>): CreationMark[] =>
  Object.entries(item).flatMap(([k, v]) => {
    const m = MARK.exec(k);
    return m ? [{ id: Number(m[1]), at: Number(v) }] : [];
  });

/** Counts a new conversation with its creation mark, before the conversation is written; answers the counter's marks after it. */
export async function countCreation(accountId: number, c: Counted, at: number): Promise<CreationMark[]> {
  const id = identity(accountId, c);
  const out = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.conversationCounter(accountId, c),
      UpdateExpression: `ADD #n :one SET #m = :at, ${id.set}`,
      ExpressionAttributeNames: { ...id.names, '#m': markName(c.id) },
      ExpressionAttributeValues: { ':one': 1, ':at': at, ...id.values },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return marksOf(out.Attributes ?? {});
}

/**
 * Removes the marks of created conversations (`written`) and of creations that never wrote their
 * conversation (`lost`, each taking its count back), in one update conditioned on every one of them still
 * being there; false (nothing changed) when another writer took one first.
 */
export async function clearMarks(accountId: number, c: Combination, written: number[], lost: number[]): Promise<boolean> {
  const ids = [...written, ...lost];
  if (!ids.length) return true;
  const names = Object.fromEntries(ids.map((id, i) => [`#m${i}`, markName(id)]));
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.conversationCounter(accountId, c),
        UpdateExpression: `REMOVE ${Object.keys(names).join(', ')}${lost.length ? ' ADD #n :d' : ''}`,
        ConditionExpression: Object.keys(names)
          .map((n) => `attribute_exists(${n})`)
          .join(' AND '),
        ExpressionAttributeNames: { ...names, ...(lost.length ? { '#n': 'count' } : {}) },
        ...(lost.length ? { ExpressionAttributeValues: { ':d': -lost.length } } : {}),
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/** AP66: every conversation counter of an account (strongly consistent, so counts are exact). */
export async function listConversationCounters(accountId: number): Promise<CounterRecord[]> {
  const p = keys.conversationCounters(accountId);
  const items = await queryItems({ KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': p.pk }, ConsistentRead: true });
  return items.map((i) => record<CounterRecord>(i)!);
}
