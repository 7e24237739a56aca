import { describe, expect, it } from 'vitest';
import {
  GRAM_BYTES,
  GRAM_DOCS_PER_PART,
  GRAM_MIN,
  GRAM_PARTS_MIN,
  gramLayout,
  MERGE_RATIO,
  newestToMerge,
  SEAL_MIN,
} from '#shared/search/index.ts';

// How the `q` index's segments merge (shared/search/index.ts): simulated over an account's life, one new
// segment of SEAL_MIN messages per seal, against the earlier policy (pairs of one power-of-two tier).

/** Segments kept and messages rewritten by merges, per policy, after `messages` messages. */
function simulate(messages: number, merge: (sizes: number[]) => number) {
  let sizes: number[] = [];
  let rewritten = 0;
  let most = 0;
  for (let n = 0; n < messages; n += SEAL_MIN) {
    sizes.push(SEAL_MIN);
    for (let k = merge(sizes); k >= 2; k = merge(sizes)) {
      const held = sizes.slice(-k).reduce((a, b) => a + b, 0);
      sizes = [...sizes.slice(0, -k), held];
      rewritten += held;
    }
    most = Math.max(most, sizes.length);
  }
  return { sizes, rewritten: rewritten / messages, most };
}

const tier = (n: number) => Math.floor(Math.log2(Math.max(1, n / SEAL_MIN)));
const pairsOfOneTier = (sizes: number[]) => (sizes.length >= 2 && tier(sizes.at(-1)!) === tier(sizes.at(-2)!) ? 2 : 0);

describe('merging segments by size ratio', () => {
  it('merges the newest segments while the next older is at most MERGE_RATIO times what they hold', () => {
    expect(newestToMerge([])).toBe(0);
    expect(newestToMerge([200])).toBe(1);
    expect(newestToMerge([5 * 200 * MERGE_RATIO, 200])).toBe(1);
    expect(newestToMerge([200 * MERGE_RATIO, 200])).toBe(2);
    // The merged newer ones raise what the next older is compared with.
    expect(newestToMerge([100_000, 1_200, 200, 200])).toBe(3);
  });

  it('keeps sizes falling by more than the ratio, so few segments, for a few more writes', () => {
    for (const [messages, most, extra] of [
      [10_000, 3, 1.15],
      [100_000, 4, 1.3],
      [1_000_000, 6, 1.15],
    ] as const) {
      const ratio = simulate(messages, newestToMerge);
      const pairs = simulate(messages, pairsOfOneTier);
      for (let i = 0; i + 1 < ratio.sizes.length; i++) expect(ratio.sizes[i]).toBeGreaterThan(MERGE_RATIO * ratio.sizes[i + 1]);
      expect(ratio.most, `${messages}`).toBeLessThanOrEqual(most);
      expect(pairs.most, `${messages}`).toBeGreaterThan(most);
      expect(ratio.rewritten, `${messages}`).toBeLessThanOrEqual(pairs.rewritten * extra);
    }
  });
});

describe('the gram partitions of large segments', () => {
  const entry = (n: number, g?: number, bt = 0) => ({
    id: `s${n}`,
    n,
    b: g ?? 1,
    bb: 0,
    solo: {},
    from: 0,
    to: 0,
    ...(g ? { g, bt } : {}),
  });

  it('lays a segment out in them from GRAM_MIN messages, sized by the large segments’ bucket bytes, if it holds GRAM_DOCS_PER_PART a partition', () => {
    expect(gramLayout([])(GRAM_MIN - 1, 1000)).toBeUndefined();
    expect(gramLayout([])(GRAM_MIN, 1000)).toBe(GRAM_PARTS_MIN);
    // Bytes past GRAM_BYTES a partition double them, its own with the others'.
    expect(gramLayout([])(100_000, GRAM_PARTS_MIN * GRAM_BYTES + 1)).toBe(2 * GRAM_PARTS_MIN);
    expect(gramLayout([entry(400_000, 256, 256 * GRAM_BYTES)])(100_000, 1)).toBe(512);
    // Never fewer than a large segment that stays has; a small one beside it counts nothing.
    expect(gramLayout([entry(400_000, 1024, 0), entry(1000)])(1024 * GRAM_DOCS_PER_PART, 0)).toBe(1024);
    // Too many partitions for its messages and bucket bytes: its own buckets.
    expect(gramLayout([entry(400_000, 1024, 0)])(1024 * GRAM_DOCS_PER_PART - 1, 0)).toBeUndefined();
    // Bucket bytes that fill the partitions anyway cost nothing more there.
    expect(gramLayout([entry(400_000, 1024, 0)])(GRAM_MIN, 1024 * 1024)).toBe(1024);
  });

  it('leaves at most two small segments, so a rare term reads at most three items, for at most 0.3 write units a message more', () => {
    for (const messages of [10_000, 100_000, 1_000_000]) {
      let sizes: number[] = [];
      let small = 0;
      let partitionWrites = 0;
      for (let n = 0; n < messages; n += SEAL_MIN) {
        sizes.push(SEAL_MIN);
        for (let k = newestToMerge(sizes); k >= 2; k = newestToMerge(sizes)) {
          const held = sizes.slice(-k).reduce((a, b) => a + b, 0);
          sizes = [...sizes.slice(0, -k), held];
          // At most one item more a GRAM_DOCS_PER_PART messages (written, and deleted when merged away).
          if (held >= GRAM_MIN) partitionWrites += (2 * held) / GRAM_DOCS_PER_PART;
        }
        small = Math.max(small, sizes.filter((x) => x < GRAM_MIN).length);
      }
      expect(small, `${messages}`).toBeLessThanOrEqual(2);
      expect(partitionWrites / messages, `${messages}`).toBeLessThan(0.3);
    }
  });
});
