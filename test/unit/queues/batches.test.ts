import { describe, expect, it } from 'vitest';
import { batchesOf, MAX_QUEUE_BYTES } from '#shared/queues/channels.ts';

// SendMessageBatch takes at most 10 entries and MAX_QUEUE_BYTES together: the channel queues split by both.

const entry = (bytes: number, n: number) => ({ body: 'x'.repeat(bytes), group: 'g', dedup: String(n) });

describe('queue batches', () => {
  it('splits by count and by bytes, in order, never over either limit', () => {
    const small = Array.from({ length: 23 }, (_, n) => entry(100, n));
    expect(batchesOf(small).map((b) => b.length)).toEqual([10, 10, 3]);
    const big = Array.from({ length: 5 }, (_, n) => entry(100 * 1024, n));
    const batches = batchesOf(big);
    expect(batches.map((b) => b.length)).toEqual([2, 2, 1]);
    expect(batches.flat().map((e) => e.dedup)).toEqual(['0', '1', '2', '3', '4']);
    for (const b of batches) expect(b.reduce((sum, e) => sum + Buffer.byteLength(e.body), 0)).toBeLessThanOrEqual(MAX_QUEUE_BYTES);
    // Bytes, not characters: an emoji is four.
    expect(batchesOf([{ body: '😀'.repeat(45_000), group: 'g', dedup: 'a' }, entry(100_000, 1)]).map((b) => b.length)).toEqual([1, 1]);
  });

  it('refuses one entry over the limit with a clear error instead of a failed batch', () => {
    expect(() => batchesOf([entry(MAX_QUEUE_BYTES + 1, 0)])).toThrow(/over SQS/);
  });
});
