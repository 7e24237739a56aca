import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '#shared/config.ts';
import { db, tableName } from './client.ts';
import * as keys from './keys.ts';

// Integer ids from counters. Global sequences are reserved in blocks per container so that no
// counter item becomes one hot item at scale; ids stay unique and increase per container, with gaps.

interface Block {
  next: number;
  end: number; // inclusive
}

const blocks = new Map<string, Block>();
const pending = new Map<string, Promise<Block>>();

async function reserve(sequence: string, size: number): Promise<Block> {
  const out = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.sequence(sequence),
      UpdateExpression: 'ADD #v :n SET #t = :t',
      ExpressionAttributeNames: { '#v': 'value', '#t': 'type' },
      ExpressionAttributeValues: { ':n': size, ':t': 'sequence' },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const end = Number(out.Attributes?.value);
  return { next: end - size + 1, end };
}

/**
 * Next id of a global sequence ('account', 'user', 'inbox', 'message', …), greater than `floor`.
 *
 * Blocks are per container, and every function has its own containers, so a container's block can be
 * behind ids that another one handed out since (a contact's message through the public API, then an
 * agent's reply through the account API). A message must sort after the conversation's last one, so its
 * id is asked above that one's: a block that is behind is left, and a fresh one, reserved after that id
 * was, starts above it (one more write when two containers take turns on one conversation).
 */
export async function nextId(sequence: string, floor = 0): Promise<number> {
  for (let fresh = 0; ; ) {
    const block = blocks.get(sequence);
    if (block && block.next <= block.end) {
      // What of the block is not above the floor is left unused.
      if (block.next <= floor) block.next = Math.min(floor, block.end) + 1;
      if (block.next <= block.end) return block.next++;
    }
    let inflight = pending.get(sequence);
    if (!inflight) {
      // One reservation at a time per sequence; concurrent callers wait for it and then share the block.
      // A floor still above a fresh block came from elsewhere than this sequence (never, unless stored
      // ids were written by hand): the next reservation reaches over it at once.
      const size = config().idBlockSize + (fresh > 0 && block ? Math.max(0, floor - block.end) : 0);
      inflight = reserve(sequence, size)
        .then((b) => {
          blocks.set(sequence, b);
          return b;
        })
        .finally(() => pending.delete(sequence));
      pending.set(sequence, inflight);
      fresh++;
    }
    await inflight;
  }
}

/** Next value of a dense sequence (no gaps from blocks), e.g. a conversation's per-account display id. */
export async function nextDenseId(sequence: string): Promise<number> {
  return (await reserve(sequence, 1)).end;
}

/** The next `n` values of a dense sequence in one reservation: the first of them (the others follow it). */
export async function nextDenseIds(sequence: string, n: number): Promise<number> {
  return (await reserve(sequence, n)).next;
}
