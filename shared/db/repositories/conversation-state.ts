import * as keys from '../keys.ts';
import type { TxItem } from '../transact.ts';
import type { ConversationRecord } from '#shared/model/conversations.ts';
import { getMany, queryItems } from './common.ts';

// AP77: the assignee and team of conversations, 64 to an item, kept in the transaction of every change of
// either, so `q` counts (mine / unassigned / all of the matching conversations, optionally of a team) read
// ~5 bytes per conversation instead of the conversations. A block holds conversations 64·b … 64·b + 63,
// each under a one-character slot name (its display id mod 64, base64url digit): "<assignee>|<team>", "x"
// once deleted; absent: unassigned, no team. Blocks written before slot names named each conversation
// `c<display id>` (twice the bytes); a change writes the slot and removes that older name, and a reader
// takes the slot first.

type State = Pick<ConversationRecord, 'id' | 'assignee_id' | 'team_id'>;

export interface ConversationState {
  assignee_id: number | null;
  team_id: number | null;
  deleted: boolean;
}

const SLOTS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** The attribute of a conversation in its block. */
export const slotOf = (id: number) => SLOTS[id % 64];
/** The attribute blocks written before slot names used. */
const olderName = (id: number) => `c${id}`;
const stateValue = (s: State) => `${s.assignee_id ?? ''}|${s.team_id ?? ''}`;

function setState(accountId: number, id: number, value: string | undefined): TxItem {
  return {
    item: {
      Update: {
        TableName: '',
        Key: keys.conversationState(accountId, id),
        UpdateExpression: value === undefined ? 'REMOVE #s, #c SET #t = :t' : 'SET #s = :v, #t = :t REMOVE #c',
        ExpressionAttributeNames: { '#s': slotOf(id), '#c': olderName(id), '#t': 'type' },
        ExpressionAttributeValues: { ':t': 'conversation_state', ...(value === undefined ? {} : { ':v': value }) },
      },
    },
  };
}

/** The state update a conversation change needs (none when assignee and team stay, or a new one has neither). */
export function stateChange(accountId: number, prev: State | undefined, next: State): TxItem | undefined {
  const before = prev ? stateValue(prev) : '|';
  const after = stateValue(next);
  if (before === after) return undefined;
  return setState(accountId, next.id, after === '|' ? undefined : after);
}

export const stateRemoval = (accountId: number, id: number): TxItem => setState(accountId, id, 'x');

function parse(v: unknown): ConversationState {
  if (v === 'x') return { assignee_id: null, team_id: null, deleted: true };
  const [a, t] = String(v ?? '|').split('|');
  return { assignee_id: a ? Number(a) : null, team_id: t ? Number(t) : null, deleted: false };
}

/** About what a block holds per conversation it spans (a reader's cost estimate: ~5 bytes a state, most blocks full). */
const BLOCK_BYTES = 400;

/**
 * The state of these conversations: a BatchGet of their blocks (0.5 RCU each) or one Query over the
 * blocks between the lowest and the highest (billed by their summed size; only blocks holding an
 * assigned, teamed or deleted conversation exist), whichever costs less, eventually consistent like the
 * rest of `q`.
 */
export async function getConversationStates(accountId: number, ids: number[]): Promise<Map<number, ConversationState>> {
  const out = new Map<number, ConversationState>();
  if (!ids.length) return out;
  const blocks = [...new Set(ids.map((id) => keys.conversationState(accountId, id).sk))].sort();
  // Slot names repeat from block to block: each item is kept under its block's sort key.
  const bySk = new Map<string, Record<string, unknown>>();
  const span = ids.reduce((a, b) => Math.max(a, b)) / 64 - ids.reduce((a, b) => Math.min(a, b)) / 64 + 1;
  if (blocks.length <= Math.ceil((span * BLOCK_BYTES) / 4096)) {
    const items = await getMany<Record<string, unknown>>(blocks.map((sk) => ({ pk: keys.conversationStatePartition(accountId), sk })));
    items.forEach((item, n) => {
      if (item) bySk.set(blocks[n], item);
    });
  } else {
    const items = await queryItems({
      KeyConditionExpression: 'pk = :p AND sk BETWEEN :lo AND :hi',
      ExpressionAttributeValues: { ':p': keys.conversationStatePartition(accountId), ':lo': blocks[0], ':hi': blocks.at(-1) },
    });
    for (const item of items) bySk.set(String(item.sk), item);
  }
  for (const id of ids) {
    const block = bySk.get(keys.conversationState(accountId, id).sk);
    out.set(id, parse(block?.[slotOf(id)] ?? block?.[olderName(id)]));
  }
  return out;
}
