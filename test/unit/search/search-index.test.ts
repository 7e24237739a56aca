import { describe, expect, it } from 'vitest';
import {
  allPostings,
  BUCKET_BYTES,
  bucketOf,
  buildSegment,
  decodeDocs,
  decodePosting,
  emptyPartitions,
  encodePosting,
  FOLLOW,
  mayHoldPartition,
  mergeSegments,
  readBucket,
  SOLO_BYTES,
  type BuiltSegment,
  type Doc,
  type Follows,
  type Posting,
  type SourceMessage,
} from '#shared/codec/search-segment.ts';
import { containsTerm, cover, startsOf, termWindows, trigramPositions } from '#shared/codec/search-text.ts';

// The `q` index's tokenising and item building (shared/search): what the writer stores must answer
// exactly what a lower-cased substring scan answers.

const msg = (m: number, content: string, c = m, t = 1000 + m): SourceMessage => ({ m, c, i: 7, t, content });

/** Evaluates a term against a built segment the way the reader does (all items in memory). */
function find(seg: BuiltSegment, term: string): number[] {
  const windows = termWindows(term)!;
  const v = seg.dir.v ?? 1;
  const chosen = cover(
    windows,
    (g) => seg.dir.solo[g]?.bytes ?? seg.dir.bb,
    (g) => (v >= 3 && !seg.dir.solo[g] ? FOLLOW : 0),
  );
  const postings = new Map<string, Posting>();
  const inline = new Map<number, Doc>();
  const follows = new Map<string, Follows>();
  for (const { gram } of chosen) {
    if (seg.dir.solo[gram]) {
      const p: Posting = new Map();
      for (const part of seg.soloParts.get(gram)!) decodePosting(part, p);
      postings.set(gram, p);
    } else {
      const one = new Map<string, Posting>();
      readBucket(seg.buckets[bucketOf(gram, seg.dir.b)], new Set([gram]), one, seg.dir.v, inline, follows);
      postings.set(gram, one.get(gram) ?? new Map());
    }
  }
  const lists = chosen.map((w) => postings.get(w.gram)!);
  const docs = seg.docChunks.flatMap((c) => decodeDocs(c));
  const matched = [...lists[0].keys()].filter(
    (d) =>
      startsOf(
        chosen,
        lists.map((l) => l.get(d)),
        chosen.map((w) => follows.get(w.gram)?.get(d)),
      ).length,
  );
  // A bucket trigram in the cover carries the doc data of every match, equal to the doc chunks'.
  if (v >= 2 && chosen.some((w) => !seg.dir.solo[w.gram])) for (const d of matched) expect(inline.get(d)).toEqual(docs[d]);
  return matched.map((d) => docs[d].m).sort((a, b) => a - b);
}

const scan = (messages: SourceMessage[], term: string) =>
  messages
    .filter((m) => containsTerm(m.content, term))
    .map((m) => m.m)
    .sort((a, b) => a - b);

describe('tokenising', () => {
  it('lower-cases and cuts code points into trigrams with positions, spaces included', () => {
    const t = trigramPositions('Ab abc😀x');
    expect(t.get('ab ')).toEqual([0]);
    expect(t.get('b a')).toEqual([1]);
    expect(t.get('abc')).toEqual([3]);
    expect(t.get('bc😀')).toEqual([4]);
    expect(t.get('c😀x')).toEqual([5]);
    expect(trigramPositions('ab').size).toBe(0);
  });

  it('a term shorter than a trigram has no windows; longer terms have one per offset', () => {
    expect(termWindows('ab')).toBeUndefined();
    expect(termWindows(' X ')?.map((w) => w.gram)).toEqual([' x ']);
    expect(termWindows('Refund')?.map((w) => [w.offset, w.gram])).toEqual([
      [0, 'ref'],
      [1, 'efu'],
      [2, 'fun'],
      [3, 'und'],
    ]);
  });

  it('cover picks the cheapest windows that still cover every code point', () => {
    const w = termWindows('refund')!;
    expect(cover(w, () => 1).map((x) => x.offset)).toEqual([0, 3]);
    // A cheap middle window is not enough on its own: the first and last are always there.
    const costs: Record<string, number> = { ref: 100, efu: 1, fun: 1, und: 100 };
    expect(cover(w, (g) => costs[g]).map((x) => x.offset)).toEqual([0, 3]);
    const long = termWindows('abcdefgh')!; // windows at 0..5
    const chosen = cover(long, (g) => (g === 'cde' ? 1 : 10));
    expect(chosen[0].offset).toBe(0);
    expect(chosen.at(-1)!.offset).toBe(5);
    for (let k = 1; k < chosen.length; k++) expect(chosen[k].offset - chosen[k - 1].offset).toBeLessThanOrEqual(3);
  });

  it('cover lets a window that carries the code points after its trigram vouch for them too', () => {
    const w = termWindows('Parcel')!;
    // Every window carries three more: the first alone covers all six code points.
    expect(
      cover(
        w,
        () => 1,
        () => 3,
      ),
    ).toEqual([{ offset: 0, gram: 'par', need: 'cel' }]);
    // Only a solo (non-carrying) first window: it and a carrying later one.
    expect(
      cover(
        w,
        () => 1,
        (g) => (g === 'par' ? 0 : 3),
      ),
    ).toEqual([
      { offset: 0, gram: 'par', need: '' },
      { offset: 1, gram: 'arc', need: 'el' },
    ]);
    // Nothing carried: the plain cover, needing nothing after any trigram.
    expect(cover(w, () => 1).every((x) => x.need === '')).toBe(true);
    // A long term chains carrying windows six code points apart.
    const long = cover(
      termWindows('damaged parcel')!,
      () => 1,
      () => 3,
    );
    expect(long).toHaveLength(3);
    expect(long[0]).toEqual({ offset: 0, gram: 'dam', need: 'age' });
    expect(long.at(-1)!.offset + 3 + long.at(-1)!.need.length).toBe(14);
    for (let k = 1; k < long.length; k++) expect(long[k].offset).toBeLessThanOrEqual(long[k - 1].offset + 3 + long[k - 1].need.length);
  });

  it('startsOf needs every chosen window at its offset from one start, followed by what it needs', () => {
    const chosen = [
      { offset: 0, gram: 'ref', need: '' },
      { offset: 3, gram: 'und', need: '' },
    ];
    expect(
      startsOf(chosen, [
        [4, 20],
        [7, 30],
      ]),
    ).toEqual([4]);
    expect(startsOf(chosen, [[4], [8]])).toEqual([]);
    expect(startsOf(chosen, [[4], undefined])).toEqual([]);
    const one = [{ offset: 0, gram: 'par', need: 'cel' }];
    expect(startsOf(one, [[2, 9, 30]], [['cel', 'cxl', 'cels']])).toEqual([2, 30]);
    expect(startsOf(one, [[2]], [['ce']])).toEqual([]);
    expect(startsOf(one, [[2]], [undefined])).toEqual([]);
  });
});

describe('index items', () => {
  it('postings round-trip through varints', () => {
    const p: Posting = new Map([
      [0, [0, 5, 300]],
      [3, [2]],
      [200_000, [1, 70_000]],
    ]);
    expect(decodePosting(encodePosting(p))).toEqual(p);
  });

  it('small postings share hash buckets of about BUCKET_BYTES, large ones are solo items', () => {
    const messages = Array.from({ length: 600 }, (_, k) =>
      msg(k + 1, `Customer ${k} asks where order ${k * 7} is, ${k % 3 ? 'thanks' : 'REFUND please'}`),
    );
    // Format 2 here, where a posting's bucketed size can be recomputed from the items (format 3 adds the
    // following code points, which solo items do not keep: it only sends more trigrams solo).
    const seg = buildSegment('s1', messages, 2);
    expect(Object.keys(buildSegment('s1', messages).dir.solo)).toEqual(expect.arrayContaining(Object.keys(seg.dir.solo)));
    expect(seg.dir.n).toBe(600);
    expect(Object.keys(seg.dir.solo)).toContain('cus');
    // Solo: what would take more than SOLO_BYTES in a bucket, doc data included.
    const docs = seg.docChunks.flatMap(decodeDocs);
    for (const [gram, info] of Object.entries(seg.dir.solo)) {
      const posting: Posting = new Map();
      for (const part of seg.soloParts.get(gram)!) decodePosting(part, posting);
      expect(encodePosting(posting, docs).length).toBeGreaterThan(SOLO_BYTES);
      expect(encodePosting(posting).length).toBe(info.bytes);
      expect(seg.soloParts.get(gram)!.length).toBe(info.parts);
    }
    for (const b of seg.buckets) expect(b.length).toBeLessThan(BUCKET_BYTES * 3);
    expect(seg.dir.b).toBeGreaterThan(1);
    expect(seg.docChunks.flatMap(decodeDocs).map((d) => d.m)).toEqual(messages.map((m) => m.m));
  });

  it('answers exactly what the substring scan answers: case, phrases, parts of words, near misses', () => {
    const messages = [
      msg(1, 'I want a REFUND now'),
      msg(2, 'refuse the fund'),
      msg(3, 'Refunded already? Where is order 42'),
      msg(4, 'nothing here'),
      msg(5, 'ORDER 4217 is late'),
      msg(6, 'order 421 arrived; order 42 too'),
      msg(7, 'Ünïcödé ÄBC and 😀😀😀 emoji'),
      ...Array.from({ length: 400 }, (_, k) => msg(100 + k, `filler text number ${k} about an order`)),
    ];
    const seg = buildSegment('s', messages);
    for (const term of [
      'refund',
      'REFUND',
      'efund',
      'und n',
      'fund',
      'order 42',
      'order 4217',
      'er 421',
      'where is order',
      'äbc',
      '😀😀😀',
      ' 😀😀',
      'ünïcödé äbc',
      'zzz',
      'about an order',
      'number 39 ',
    ]) {
      expect(find(seg, term), term).toEqual(scan(messages, term));
    }
  });

  it('merging segments keeps every answer and renumbers docs in time order', () => {
    const a = Array.from({ length: 50 }, (_, k) => msg(k + 1, `alpha ${k} refund`, k, 2000 + k));
    const b = Array.from({ length: 50 }, (_, k) => msg(1000 + k, `beta ${k} Refund`, 500 + k, 1000 + k));
    const sa = buildSegment('a', a);
    const sb = buildSegment('b', b);
    const merged = mergeSegments(
      'm',
      [sa, sb].map((s) => ({ docs: s.docChunks.flatMap(decodeDocs), postings: allPostings(s.buckets, s.soloParts, s.dir.v) })),
    );
    const docs = merged.docChunks.flatMap(decodeDocs);
    expect(docs.map((d) => d.t)).toEqual([...docs.map((d) => d.t)].sort((x, y) => x - y));
    for (const term of ['refund', 'beta 4', 'alpha 49 ref', 'a 1']) expect(find(merged, term), term).toEqual(scan([...a, ...b], term));
  });

  it('format 2 buckets carry each match’s doc data; a format 1 segment still answers and merges into format 2', () => {
    const docs = [
      { m: 9, c: 3, i: 2, t: 100 },
      { m: 4, c: 1, i: 7, t: 100 },
      { m: 70_000, c: 12_345, i: 1, t: 5_000_000 },
    ];
    const p: Posting = new Map([
      [0, [1]],
      [2, [0, 9]],
    ]);
    const inline = new Map<number, Doc>();
    expect(decodePosting(encodePosting(p, docs), new Map(), inline)).toEqual(p);
    expect(inline).toEqual(
      new Map([
        [0, docs[0]],
        [2, docs[2]],
      ]),
    );

    const old = Array.from({ length: 300 }, (_, k) => msg(k + 1, `old ${k} parcel ${k % 50 ? 'shipped' : 'lost'}`, k + 1, 1000 + k));
    const recent = Array.from({ length: 300 }, (_, k) =>
      msg(5000 + k, `new ${k} parcel ${k % 60 ? 'shipped' : 'lost'}`, 400 + k, 9000 + k),
    );
    const v1 = buildSegment('v1', old, 1);
    const v2 = buildSegment('v2', recent, 2);
    expect(v1.dir.v).toBeUndefined();
    expect(v2.dir.v).toBe(2);
    for (const term of ['parcel lost', 'lost', 'old 49 parcel']) {
      expect(find(v1, term), term).toEqual(scan(old, term));
      expect(find(v2, term), term).toEqual(scan(recent, term));
    }
    const merged = mergeSegments(
      'm',
      [v1, v2].map((s) => ({ docs: s.docChunks.flatMap(decodeDocs), postings: allPostings(s.buckets, s.soloParts, s.dir.v) })),
    );
    expect(merged.dir.v).toBe(2);
    for (const term of ['parcel lost', 'lost', 'new 59 parcel', 'shipped'])
      expect(find(merged, term), term).toEqual(scan([...old, ...recent], term));
  });

  it('format 3 buckets carry the code points after each position: a rare term of six reads one bucket trigram, exactly', () => {
    const messages = [
      msg(1, 'a damaged Parcel'),
      msg(2, 'parcels arrived'),
      msg(3, 'parcxl typo'),
      msg(4, 'the parc'),
      msg(5, 'PARCEL😀 and parcel'),
      msg(6, 'Ünïcödé äbcdé'),
      ...Array.from({ length: 300 }, (_, k) => msg(100 + k, `filler ${k} about an order`)),
    ];
    const seg = buildSegment('v3', messages);
    expect(seg.dir.v).toBe(3);
    expect(seg.dir.solo.par).toBeUndefined();
    const w = cover(
      termWindows('parcel')!,
      () => 1,
      (g) => (seg.dir.solo[g] ? 0 : FOLLOW),
    );
    expect(w).toHaveLength(1);
    for (const term of [
      'parcel',
      'parcels',
      'parc',
      'arcel',
      'parcel😀',
      'ïcödé äb',
      'damaged parcel',
      'a damaged parcel',
      'parcx',
      'filler 29 about',
      'about an order',
    ]) {
      expect(find(seg, term), term).toEqual(scan(messages, term));
    }
  });

  it('merging format 3 segments keeps format 3; with a format 2 one the merge is format 2; answers stay exact', () => {
    const a = Array.from({ length: 120 }, (_, k) => msg(k + 1, `alpha ${k} parcel ${k % 9 ? 'ok' : 'lost'}`, k, 2000 + k));
    const b = Array.from({ length: 120 }, (_, k) => msg(1000 + k, `beta ${k} Parcels ${k % 7 ? 'ok' : 'late'}`, 500 + k, 1000 + k));
    const parts = (segs: BuiltSegment[]) =>
      segs.map((s) => {
        const follows = new Map<string, Follows>();
        const postings = allPostings(s.buckets, s.soloParts, s.dir.v, follows);
        return { docs: s.docChunks.flatMap(decodeDocs), postings, ...((s.dir.v ?? 1) >= 3 ? { follows } : {}) };
      });
    const both3 = mergeSegments('m3', parts([buildSegment('a', a), buildSegment('b', b)]));
    expect(both3.dir.v).toBe(3);
    const mixed = mergeSegments('m2', parts([buildSegment('a', a, 2), buildSegment('b', b)]));
    expect(mixed.dir.v).toBe(2);
    for (const seg of [both3, mixed]) {
      for (const term of ['parcel', 'parcels', 'parcel lost', 'cels late', 'alpha 10 par', 'beta 119'])
        expect(find(seg, term), term).toEqual(scan([...a, ...b], term));
    }
  });

  it('spreads trigrams over buckets by a stable hash', () => {
    expect(bucketOf('abc', 10)).toBe(bucketOf('abc', 10));
    const used = new Set(['abc', 'bcd', 'cde', 'def', 'efg', 'fgh', 'ghi', 'hij'].map((g) => bucketOf(g, 4)));
    expect(used.size).toBeGreaterThan(1);
  });

  it('a gram-partitioned segment marks the partitions it leaves empty; a bucket trigram there is in none of its messages', () => {
    const messages = ['a damaged parcel arrived', 'where is order 4001', 'thanks, all good'].map((x, n) => msg(n + 1, x));
    for (const parts of [64, 256]) {
      const seg = buildSegment('g', messages, undefined, () => parts);
      expect(seg.dir.g).toBe(parts);
      for (let p = 0; p < parts; p++) expect(mayHoldPartition(seg.dir, p), `partition ${p}`).toBe(seg.buckets[p].length > 0);
      expect(seg.buckets.some((b) => !b.length)).toBe(true);
      // Every trigram a message holds that is not solo has its partition marked as held.
      for (const m of messages)
        for (const gram of trigramPositions(m.content).keys())
          if (!seg.dir.solo[gram]) expect(mayHoldPartition(seg.dir, bucketOf(gram, parts))).toBe(true);
    }
    // Few partitions for many messages: all hold something, and the mark is empty (two bytes of the head's JSON).
    const full = buildSegment(
      'f',
      Array.from({ length: 200 }, (_, n) => msg(n + 1, `order ${n * 7919} for customer ${n}`)),
      undefined,
      () => 4,
    );
    expect(full.dir.ge).toBe('');
    for (let p = 0; p < 4; p++) expect(mayHoldPartition(full.dir, p)).toBe(true);
    // A segment with buckets of its own has no mark; one written before the mark may hold any partition.
    expect(buildSegment('o', messages).dir.ge).toBeUndefined();
    expect(mayHoldPartition({}, 5)).toBe(true);
  });

  it('the mark is a bitmap of empty partitions, trailing zero bytes dropped', () => {
    const e = new Uint8Array();
    const b = Uint8Array.of(1);
    expect(emptyPartitions([b, b, b, b])).toBe('');
    // Partitions 0 and 9 empty: bytes 0x01, 0x02.
    const mark = emptyPartitions([e, b, b, b, b, b, b, b, b, e, b, b]);
    expect([...Buffer.from(mark, 'base64url')]).toEqual([1, 2]);
    expect([0, 9].every((p) => !mayHoldPartition({ ge: mark }, p))).toBe(true);
    expect([1, 8, 10, 11, 100].every((p) => mayHoldPartition({ ge: mark }, p))).toBe(true);
    // Only partition 0 empty of 64: one byte.
    expect(emptyPartitions([e, ...Array.from({ length: 63 }, () => b)])).toBe('AQ');
  });
});
