import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { db, tableName } from './client.ts';
import { keys } from './keys.ts';

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

/** Next id of a global sequence ('account', 'user', 'inbox', 'message', …). */
export async function nextId(sequence: string): Promise<number> {
  for (;;) {
    const block = blocks.get(sequence);
    if (block && block.next <= block.end) return block.next++;
    let inflight = pending.get(sequence);
    if (!inflight) {
      // One reservation at a time per sequence; concurrent callers wait for it and then share the block.
      inflight = reserve(sequence, config().idBlockSize)
        .then((b) => (blocks.set(sequence, b), b))
        .finally(() => pending.delete(sequence));
      pending.set(sequence, inflight);
    }
    await inflight;
  }
}

/** Next value of a dense sequence (no gaps from blocks), e.g. a conversation's per-account display id. */
export async function nextDenseId(sequence: string): Promise<number> {
  return (await reserve(sequence, 1)).end;
}
