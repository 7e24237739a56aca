import { beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { getGramPartition, getSearchHead, putSearchHead, type SegmentEntry } from '#shared/db/repositories/search-index.ts';
import { bucketOf, buildSegment, mayHoldPartition } from '#shared/codec/search-segment.ts';
import { termWindows } from '#shared/codec/search-text.ts';
import { GRAM_PARTS_MIN, searchIndex, sealSearchIndex } from '#shared/search/index.ts';
import { scopedReads, type ReadCall } from '../support/calls.ts';
import { runtime } from '../support/runtime.ts';

// A large segment's mark of the gram partitions where it has no item (`ge`, docs/search.md#gram-partitions): a
// term with a bucket trigram hashing to such a partition of a segment is not in that segment, so a search reads
// nothing of it — no Query of an empty gram partition, which AWS bills 0.5 (DynamoDB Local 0). The mark agrees
// with the partitions' items; a merge reads and a stale segment's removal deletes only the partitions it holds;
// segments written before the mark read as before. Small segments are laid out as large ones here (`ANY_SIZE`).

const ANY_SIZE = { min: 1, docsPerPart: 0 };
const INBOX = 7;

let recorder: ReturnType<typeof scopedReads> | undefined;
const record = () => (recorder ??= scopedReads('gramMarksRecorder'));

async function writeTail(accountId: number, messages: { m: number; t: number; content: string }[]) {
  for (const { m, t, content } of messages)
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...keys.searchTail(accountId, t, m), c: m, i: INBOX, x: content } }));
}

const FIRST = [
  'a damaged Parcel arrived',
  'where is order 4001',
  'order 4002 ships today',
  'thanks, all good',
  'can I change the address?',
  'the courier called me',
  'refund please',
  'it was late again',
  'my tracking number is wrong',
  'hello, anyone there?',
].map((content, n) => ({ m: n + 1, t: 1000 + n, content }));
const SECOND = ['the PARCEL went back', 'order 4003 is here'].map((content, n) => ({ m: 100 + n, t: 1050 + n, content }));

/** Loads FIRST and SECOND and seals them into two large segments (10 and 2 messages, not merged). */
async function twoSegments(accountId: number) {
  await writeTail(accountId, FIRST);
  expect(await sealSearchIndex(accountId, { now: 1100, min: 1, gram: ANY_SIZE })).toBe(true);
  await writeTail(accountId, SECOND);
  expect(await sealSearchIndex(accountId, { now: 1200, min: 1, gram: ANY_SIZE })).toBe(true);
  const head = await getSearchHead(accountId, true);
  expect(head.segments.map((s) => [s.n, s.g])).toEqual([
    [10, GRAM_PARTS_MIN],
    [2, GRAM_PARTS_MIN],
  ]);
  return head;
}

const heldOf = (s: Pick<SegmentEntry, 'ge'>) => Array.from({ length: GRAM_PARTS_MIN }, (_, p) => p).filter((p) => mayHoldPartition(s, p));

/** Whether a segment's mark rules the term out (a bucket trigram of it in a partition it marks empty). */
const ruledOut = (s: SegmentEntry, term: string) =>
  termWindows(term)!.some(({ gram }) => !s.solo[gram] && !mayHoldPartition(s, bucketOf(gram, s.g!)));

const gramQueries = (calls: ReadCall[], accountId: number) =>
  calls.filter((c) => c.command === 'QueryCommand' && c.partition?.startsWith(`SGRAM#${accountId}#`));
const gramKeysRead = (calls: ReadCall[], accountId: number) =>
  calls.flatMap((c) => (c.command === 'BatchGetItemCommand' ? (c.keys ?? []) : [])).filter((pk) => pk.startsWith(`SGRAM#${accountId}#`));

describe('the gram partitions a large segment marks empty', () => {
  const accountId = 820_000_000 + Math.floor(Math.random() * 1_000_000);
  let head: Awaited<ReturnType<typeof getSearchHead>>;
  // Neither segment holds "zebra"; each has a partition of one of its trigrams empty (asserted below).
  const ABSENT = 'zebra';

  beforeAll(async () => {
    await runtime();
    record();
    head = await twoSegments(accountId);
  });

  it('marks exactly the partitions where the segment wrote no item', async () => {
    const held = new Map<string, Set<number>>(head.segments.map((s) => [s.id, new Set<number>()]));
    for (let part = 0; part < GRAM_PARTS_MIN; part++)
      for (const id of (await getGramPartition(accountId, GRAM_PARTS_MIN, part)).keys()) held.get(id)?.add(part);
    for (const s of head.segments) {
      expect(typeof s.ge).toBe('string');
      const marked = heldOf(s);
      expect(marked).toEqual([...held.get(s.id)!].sort((a, b) => a - b));
      // Ten short messages leave partitions empty in 64.
      expect(marked.length).toBeGreaterThan(0);
      expect(marked.length).toBeLessThan(GRAM_PARTS_MIN);
    }
  });

  it('a term ruled out in every segment reads no gram partition; one that may be there reads its partition once', async () => {
    for (const s of head.segments) expect(ruledOut(s, ABSENT)).toBe(true);
    const absent = await recorder!.during(() => searchIndex(accountId, 'all', ABSENT));
    expect(absent.result).toEqual([]);
    expect(gramQueries(absent.calls, accountId)).toEqual([]);
    expect(gramKeysRead(absent.calls, accountId)).toEqual([]);

    const present = await recorder!.during(() => searchIndex(accountId, 'all', 'parcel'));
    expect(present.result.map((h) => h.m).sort((a, b) => a - b)).toEqual([1, 100]);
    expect(gramQueries(present.calls, accountId)).toHaveLength(1);
    expect(present.calls.reduce((t, c) => t + c.rcu, 0)).toBeGreaterThan(0);
  });

  it('a merge reads, and a stale segment’s removal deletes, only the partitions the segments hold', async () => {
    await writeTail(accountId, [{ m: 200, t: 1150, content: 'one more parcel' }]);
    // [10, 2, 1]: the new segment of one message and the two before merge, each read by the keys of its held partitions.
    const third = buildSegment('x', [{ m: 200, c: 200, i: INBOX, t: 1150, content: 'one more parcel' }], undefined, () => GRAM_PARTS_MIN);
    const expected = [...head.segments, third.dir].reduce((t, s) => t + heldOf(s).length, 0);
    expect(expected).toBeLessThan(3 * GRAM_PARTS_MIN);
    const merge = await recorder!.during(() => sealSearchIndex(accountId, { now: 1300, min: 1, gram: ANY_SIZE }));
    expect(merge.result).toBe(true);
    expect(gramKeysRead(merge.calls, accountId)).toHaveLength(expected);
    const merged = await getSearchHead(accountId, true);
    expect(merged.segments.map((s) => s.n)).toEqual([13]);
    for (const x of merged.garbage) expect(typeof x.ge).toBe('string');
    expect((await searchIndex(accountId, 'all', 'parcel')).map((h) => h.m).sort((a, b) => a - b)).toEqual([1, 100, 200]);

    // An hour on, the merged-away segments are stale and leave the gram partitions.
    await writeTail(accountId, [{ m: 300, t: 1250, content: 'last parcel' }]);
    expect(await sealSearchIndex(accountId, { now: 1300 + 3600, min: 1, gram: ANY_SIZE })).toBe(true);
    const gone = new Set(merged.garbage.map((x) => x.id));
    for (let part = 0; part < GRAM_PARTS_MIN; part++)
      for (const id of (await getGramPartition(accountId, GRAM_PARTS_MIN, part)).keys()) expect(gone.has(id)).toBe(false);
  });

  it('segments without the mark (written before it) query the partition as before', async () => {
    const old = 830_000_000 + Math.floor(Math.random() * 1_000_000);
    const h = await twoSegments(old);
    expect(await putSearchHead(old, h, { ...h, segments: h.segments.map(({ ge: _ge, ...s }) => s) })).toBe(true);
    const absent = await recorder!.during(() => searchIndex(old, 'all', ABSENT));
    expect(absent.result).toEqual([]);
    expect(gramQueries(absent.calls, old).length).toBeGreaterThanOrEqual(1);
    expect((await searchIndex(old, 'all', 'parcel')).map((h) => h.m).sort((a, b) => a - b)).toEqual([1, 100]);
  });
});
