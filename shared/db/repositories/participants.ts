import * as keys from '../keys.ts';
import { check, del, put, transact, type TxItem } from '../transact.ts';
import { notFound } from '#shared/errors.ts';
import { queryPrefix } from './common.ts';

// Conversation participants live in the conversation's partition (`PART#<user>`), so deleting the
// conversation's partition takes them along.

export interface ParticipantRecord {
  account_id: number;
  conversation_id: number;
  user_id: number;
  created_at: number;
}

/** AP114: the participants of a conversation (user ids, ascending). */
export async function listParticipantIds(accountId: number, displayId: number): Promise<number[]> {
  const p = keys.conversationParticipants(accountId, displayId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => Number(i.user_id));
}

/** Adds and removes participants; the first transaction checks that the conversation still exists. */
export async function changeParticipants(accountId: number, displayId: number, add: ParticipantRecord[], remove: number[]): Promise<void> {
  const writes: TxItem[] = [
    ...add.map((p) => ({
      item: put({ ...keys.conversationParticipant(accountId, displayId, p.user_id), type: 'conversation_participant', ...p }),
    })),
    ...remove.map((u) => ({ item: del(keys.conversationParticipant(accountId, displayId, u)) })),
  ];
  const guard: TxItem = {
    item: check(keys.conversation(accountId, displayId), { expression: 'attribute_exists(pk)' }),
    onConflict: () => notFound('Conversation'),
  };
  for (let i = 0; i === 0 || i < writes.length; i += 99)
    await transact(i === 0 ? [guard, ...writes.slice(0, 99)] : writes.slice(i, i + 99));
}
