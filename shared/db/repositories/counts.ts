import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import type { Key } from '../keys.ts';
import { ConflictError, del, transact, type TxItem } from '../transact.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import { queryItems, record } from './common.ts';

// Conversation counters: one item per (inbox, team, status, assignee) combination in use, kept in the
// same transaction as every conversation change but a plain creation (below), so `/conversations/meta`
// reads the combinations in use and never the conversations. A bot assignee counts as unassigned
// (docs/chatwoot.md#lists-counts-search-and-filters), so it is no part of the combination. Beside them, the
// account counters (AP67) hold the same counts summed over the inboxes, one item per (team, status,
// assignee): what the whole account's lists and counts read, whatever its number of inboxes. Every writer
// keeps both; an account reads the account counters only once they are complete (`account_counters` on the
// account: accounts made since they exist; older ones read the inbox counters).

export interface CounterRecord {
  account_id: number;
  inbox_id: number;
  team_id: number | null;
  status: string;
  assignee_id: number | null;
  count: number;
}

/** An account counter: the counts of a (team, status, assignee) combination over every inbox. */
export type AccountCounterRecord = Omit<CounterRecord, 'inbox_id'>;

type Combination = Pick<ConversationRecord, 'inbox_id' | 'team_id' | 'status' | 'assignee_id'>;
type Counted = Combination & Pick<ConversationRecord, 'id'>;

const same = (a: Combination, b: Combination) =>
  a.inbox_id === b.inbox_id && a.team_id === b.team_id && a.status === b.status && a.assignee_id === b.assignee_id;
const sameOverInboxes = (a: Combination, b: Combination) => same({ ...a, inbox_id: 0 }, { ...b, inbox_id: 0 });

// A new conversation's counters are not in a transaction with it (2 write units instead of 6): each counter is
// added first together with a creation mark `c<display id>` (the time, seconds), then the conversation is
// written. The mark says "counted, conversation maybe not written yet" and leaves with the conversation's
// first change of combination or its deletion (the same update that takes it off this counter), or when a
// later creation settles the marks of its counter (conversations.ts `settleCreations`): the marks of
// conversations that exist go, and a mark whose conversation is still missing long after any request could
// have written it takes its count back. So a crash between the writes leaves the count one too high
// until that settlement, and never counts twice: every removal is conditioned on the mark being there.
const MARK = /^c(\d+)$/;
const markName = (id: number) => `c${id}`;

export interface CreationMark {
  id: number;
  /** When it was counted (seconds). */
  at: number;
}

/** One counter item: the inbox counter of a combination, or its account counter. */
export interface CounterKey {
  key: Key;
  set: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

const inboxCounter = (accountId: number, c: Combination): CounterKey => ({
  key: keys.conversationCounter(accountId, c),
  set: '#t = :t, account_id = :a, inbox_id = :i, team_id = :tm, #s = :s, assignee_id = :u',
  names: { '#n': 'count', '#t': 'type', '#s': 'status' },
  values: { ':t': 'conversation_count', ':a': accountId, ':i': c.inbox_id, ':tm': c.team_id, ':s': c.status, ':u': c.assignee_id },
});

const accountCounter = (accountId: number, c: Pick<CounterRecord, 'team_id' | 'status' | 'assignee_id'>): CounterKey => ({
  key: keys.accountConversationCounter(accountId, c),
  set: '#t = :t, account_id = :a, team_id = :tm, #s = :s, assignee_id = :u',
  names: { '#n': 'count', '#t': 'type', '#s': 'status' },
  values: { ':t': 'account_conversation_count', ':a': accountId, ':tm': c.team_id, ':s': c.status, ':u': c.assignee_id },
});

function counterUpdate(counter: CounterKey, id: number, delta: number): TxItem {
  // Leaving a counter takes the conversation's creation mark along if it is still there (no-op otherwise).
  const leaving = delta < 0;
  return {
    item: {
      Update: {
        TableName: '',
        Key: counter.key,
        UpdateExpression: `ADD #n :d SET ${counter.set}${leaving ? ' REMOVE #m' : ''}`,
        ExpressionAttributeNames: { ...counter.names, ...(leaving ? { '#m': markName(id) } : {}) },
        ExpressionAttributeValues: { ':d': delta, ...counter.values },
      },
    },
  };
}

/** The counter updates a conversation change needs (none when its combination stays the same). */
export function counterChanges(accountId: number, prev: Counted | undefined, next: Counted): TxItem[] {
  if (prev && same(prev, next)) return [];
  const out = [
    ...(prev ? [counterUpdate(inboxCounter(accountId, prev), prev.id, -1)] : []),
    counterUpdate(inboxCounter(accountId, next), next.id, 1),
  ];
  if (prev && sameOverInboxes(prev, next)) return out;
  return [
    ...out,
    ...(prev ? [counterUpdate(accountCounter(accountId, prev), prev.id, -1)] : []),
    counterUpdate(accountCounter(accountId, next), next.id, 1),
  ];
}

/** The counter updates of a conversation that goes away. */
export const counterRemoval = (accountId: number, c: Counted): TxItem[] => [
  counterUpdate(inboxCounter(accountId, c), c.id, -1),
  counterUpdate(accountCounter(accountId, c), c.id, -1),
];

/** The marks of a counter item. */
export const marksOf = (item: Record<string, unknown>): CreationMark[] =>
  Object.entries(item).flatMap(([k, v]) => {
    const m = MARK.exec(k);
    return m ? [{ id: Number(m[1]), at: Number(v) }] : [];
  });

/**
 * Counts a new conversation with its creation mark on its inbox counter and its account counter (in parallel),
 * before the conversation is written; answers each counter with its marks after it.
 */
export async function countCreation(accountId: number, c: Counted, at: number): Promise<{ counter: CounterKey; marks: CreationMark[] }[]> {
  return Promise.all(
    [inboxCounter(accountId, c), accountCounter(accountId, c)].map(async (counter) => {
      const out = await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: counter.key,
          UpdateExpression: `ADD #n :one SET #m = :at, ${counter.set}`,
          ExpressionAttributeNames: { ...counter.names, '#m': markName(c.id) },
          ExpressionAttributeValues: { ':one': 1, ':at': at, ...counter.values },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { counter, marks: marksOf(out.Attributes ?? {}) };
    }),
  );
}

/**
 * A purged conversation's creation mark, if still on its account counter: the purge deletes the conversation
 * without a counter update and takes its inbox counters' counts off the account counters whole, so a mark left
 * there would be settled as a lost creation and counted off a second time. Its inbox counter goes with the inbox.
 */
export async function forgetCreationMark(
  accountId: number,
  c: { id: number; team_id: number | null; status: string; assignee_id: number | null },
): Promise<void> {
  await clearMarks(accountCounter(accountId, c), [c.id], []);
}

/**
 * Removes the marks of created conversations (`written`) and of creations that never wrote their
 * conversation (`lost`, each taking its count back), in one update conditioned on every one of them still
 * being there; false (nothing changed) when another writer took one first.
 */
export async function clearMarks(counter: CounterKey, written: number[], lost: number[]): Promise<boolean> {
  const ids = [...written, ...lost];
  if (!ids.length) return true;
  const names = Object.fromEntries(ids.map((id, i) => [`#m${i}`, markName(id)]));
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: counter.key,
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

/** AP67: every account counter of an account (strongly consistent): the counts over all its inboxes. */
export async function listAccountCounters(accountId: number): Promise<AccountCounterRecord[]> {
  const p = keys.accountConversationCounters(accountId);
  const items = await queryItems({ KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': p.pk }, ConsistentRead: true });
  return items.map((i) => record<AccountCounterRecord>(i)!);
}

/** AP66 for a few inboxes: their counters (one strongly consistent Query each, in parallel). */
export async function listInboxCounters(accountId: number, inboxIds: number[]): Promise<CounterRecord[]> {
  const p = keys.conversationCounters(accountId);
  const pages = await Promise.all(
    inboxIds.map((inbox) =>
      queryItems({
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :i)',
        ExpressionAttributeValues: { ':p': p.pk, ':i': `${inbox}#` },
        ConsistentRead: true,
      }),
    ),
  );
  return pages.flat().map((i) => record<CounterRecord>(i)!);
}

/**
 * A purged inbox's counter goes, its count leaving the account counter of its combination, in one transaction
 * conditioned on the count read (a purge that runs again finds the item gone and does nothing).
 */
export async function dropInboxCounter(c: CounterRecord): Promise<void> {
  try {
    await transact([
      {
        item: del(keys.conversationCounter(c.account_id, c), {
          expression: '#n = :n',
          names: { '#n': 'count' },
          values: { ':n': c.count },
        }),
      },
      counterUpdate(accountCounter(c.account_id, c), 0, -c.count),
    ]);
  } catch (err) {
    if (err instanceof ConflictError) return;
    throw err;
  }
}
