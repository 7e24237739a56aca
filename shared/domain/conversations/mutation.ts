import { ConflictError } from '#shared/db/transact.ts';
import { getConversation, saveConversation } from '#shared/db/repositories/conversations.ts';
import { ServiceError, notFound } from '#shared/errors.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import { performerOf, type ConversationActor, type ConversationRecord } from '#shared/model/conversations.ts';

// Every change of a conversation goes through `mutate`: read, compute, write conditioned on the version
// read, and on a concurrent change read again and recompute. Counters, labels and the messages the change
// adds are written in the same transaction, so counts never drift from the conversations.

export interface Change<R> {
  /** The new state; absent when nothing changes (nothing is written). */
  next?: ConversationRecord;
  /** Messages the change adds (activity messages, the message that caused it), oldest first. */
  messages?: MessageRecord[];
  /** Stored messages the change rewrites (see ConversationWrite). */
  rewrites?: MessageRecord[];
  /** The contact the conversation leaves, when it moves to another (see ConversationWrite). */
  leavesContact?: number;
  result: R;
}

// Many writers on one conversation (a burst of messages and edits) each win within a few rounds; the
// bound only stops a livelock.
const MAX_ATTEMPTS = 80;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const nowFloat = () => Date.now() / 1000;

/** The record after a change by `actor`: bumps version and `updated_at` and names who did it. */
export function touch(c: ConversationRecord, actor: ConversationActor | null, changes: Partial<ConversationRecord>): ConversationRecord {
  return { ...c, ...changes, version: c.version + 1, updated_at: nowFloat(), updated_by: actor ? performerOf(actor) : null };
}

/** A write that is no change Chatwoot announces (seen-times, a refreshed message copy): `updated_at` stays. */
export const quietly = (c: ConversationRecord, changes: Partial<ConversationRecord>): ConversationRecord => ({
  ...c,
  ...changes,
  version: c.version + 1,
});

/**
 * What a new message does to its conversation's denormalized fields (docs/chatwoot.md#creating-a-message "after
 * commit").
 */
export function withMessage(c: ConversationRecord, m: MessageRecord): ConversationRecord {
  return {
    ...c,
    last_activity_at: Math.max(c.last_activity_at, m.created_at),
    last_message: m,
    last_non_activity_message: m.message_type === 2 ? c.last_non_activity_message : m,
  };
}

/**
 * Applies `apply` to the conversation and writes the result; `first` is a strongly consistent read
 * the caller already made (access checks), later attempts read again.
 */
export async function mutate<R>(
  first: ConversationRecord,
  apply: (c: ConversationRecord) => Promise<Change<R>> | Change<R>,
): Promise<{ conversation: ConversationRecord; result: R; messages: MessageRecord[] }> {
  let current: ConversationRecord | undefined = first;
  const staged = new Set<number>();
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (!current) throw notFound('Conversation');
    const change = await apply(current);
    if (!change.next) return { conversation: current, result: change.result, messages: [] };
    const messages = change.messages ?? [];
    const next = messages.reduce(withMessage, change.next);
    try {
      await saveConversation(current, next, { messages, rewrites: change.rewrites, leavesContact: change.leavesContact, staged });
      return { conversation: next, result: change.result, messages };
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      await sleep(Math.random() * Math.min(250, 10 * 2 ** attempt));
      current = await getConversation(first.account_id, first.id, true);
    }
  }
  throw new ServiceError('conflict', 'The conversation is changing too quickly; retry', [
    { field: '', message: 'Concurrent changes; retry the request', code: 'conflict' },
  ]);
}
