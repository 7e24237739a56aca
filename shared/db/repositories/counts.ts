import { keys } from '../keys.ts';
import type { TxItem } from '../transact.ts';
import type { ConversationRecord } from '../../domain/conversations/model.ts';
import { queryItems, record } from './common.ts';

// Conversation counters: one item per (inbox, team, status, assignee) combination in use, kept in the
// same transaction as the conversation change, so `/conversations/meta` reads the combinations in use
// and never the conversations. A bot assignee counts as unassigned (reference §4.3), so it is no part
// of the combination.

export interface CounterRecord {
  account_id: number;
  inbox_id: number;
  team_id: number | null;
  status: string;
  assignee_id: number | null;
  count: number;
}

type Combination = Pick<ConversationRecord, 'inbox_id' | 'team_id' | 'status' | 'assignee_id'>;

const same = (a: Combination, b: Combination) =>
  a.inbox_id === b.inbox_id && a.team_id === b.team_id && a.status === b.status && a.assignee_id === b.assignee_id;

function counterUpdate(accountId: number, c: Combination, delta: number): TxItem {
  return {
    item: {
      Update: {
        TableName: '',
        Key: keys.conversationCounter(accountId, c),
        UpdateExpression: 'ADD #n :d SET #t = :t, account_id = :a, inbox_id = :i, team_id = :tm, #s = :s, assignee_id = :u',
        ExpressionAttributeNames: { '#n': 'count', '#t': 'type', '#s': 'status' },
        ExpressionAttributeValues: {
          ':d': delta,
          ':t': 'conversation_count',
          ':a': accountId,
          ':i': c.inbox_id,
          ':tm': c.team_id,
          ':s': c.status,
          ':u': c.assignee_id,
        },
      },
    },
  };
}

/** The counter updates a conversation change needs (none when its combination stays the same). */
export function counterChanges(accountId: number, prev: Combination | undefined, next: Combination): TxItem[] {
  if (prev && same(prev, next)) return [];
  return [...(prev ? [counterUpdate(accountId, prev, -1)] : []), counterUpdate(accountId, next, 1)];
}

/** The counter update of a conversation that goes away. */
export const counterRemoval = (accountId: number, c: Combination): TxItem => counterUpdate(accountId, c, -1);

/** AP66: every conversation counter of an account (strongly consistent, so counts are exact). */
export async function listConversationCounters(accountId: number): Promise<CounterRecord[]> {
  const p = keys.conversationCounters(accountId);
  const items = await queryItems({ KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': p.pk }, ConsistentRead: true });
  return items.map((i) => record<CounterRecord>(i)!);
}
