import { describe, expect, it } from 'vitest';
import { decodePack, encodePack, packsOf } from '#shared/codec/search-pack.ts';
import {
  allPostings,
  bucketOf,
  buildFromPostings,
  buildSegment,
  decodeDocs,
  decodePosting,
  DOC_CHUNK,
  encodeDocs,
  encodePosting,
  PART_BYTES,
  Reader,
  readBucket,
  Writer,
  type Doc,
  type Follows,
  type Posting,
} from '#shared/codec/search-segment.ts';
import { containsTerm } from '#shared/codec/search-text.ts';

// The `q` index's byte formats (shared/codec/search-segment.ts, search-pack.ts) below what
// search-index.test.ts checks through whole segments: the varints and the bucket hash every stored
// segment was written with, doc chunks, format 3 postings, solo parts, and the edges (nothing to index).

const bytes = (w: Writer) => [...w.done()];

describe('varints', () => {
  it('seven bits a byte, low first, the high bit saying more follow', () => {
    const enc = (n: number) => {
      const w = new Writer();
      w.uint(n);
      return bytes(w);
    };
    expect(enc(0)).toEqual([0]);
    expect(enc(127)).toEqual([0x7f]);
    expect(enc(128)).toEqual([0x80, 0x01]);
    expect(enc(300)).toEqual([0xac, 0x02]);
    expect(enc(16_384)).toEqual([0x80, 0x80, 0x01]);
    expect(enc(Number.MAX_SAFE_INTEGER)).toHaveLength(8);
  });

  it('round-trip up to the largest safe integer, with length-prefixed byte strings between', () => {
    const values = [0, 1, 127, 128, 255, 16_383, 16_384, 2 ** 31, 2 ** 32 + 5, 2 ** 53 - 1];
    const w = new Writer();
    for (const v of values) w.uint(v);
    w.bytes(new TextEncoder().encode('bc😀'));
    w.uint(42);
    const r = new Reader(w.done());
    expect(values.map(() => r.uint())).toEqual(values);
    expect(new TextDecoder().decode(r.bytes())).toBe('bc😀');
    expect(r.uint()).toBe(42);
    expect(r.more).toBe(false);
  });

  it('refuse what they cannot hold, and a truncated number', () => {
    const w = new Writer();
    for (const bad of [-1, 1.5, 2 ** 53, Number.NaN]) expect(() => w.uint(bad), String(bad)).toThrow(/varint out of range/);
    expect(w.length).toBe(0);
    expect(() => new Reader(Uint8Array.from([0x80, 0x80])).uint()).toThrow(/truncated varint/);
  });
});

describe('bucket hash', () => {
  it('is FNV-1a over the UTF-8 bytes (the published vectors), modulo the bucket count', () => {
    expect(bucketOf('', 2 ** 32)).toBe(0x811c9dc5);
    expect(bucketOf('a', 2 ** 32)).toBe(0xe40c292c);
    expect(bucketOf('foobar', 2 ** 32)).toBe(0xbf9cf968);
    expect(bucketOf('abc', 1000)).toBe(0x1a47e90b % 1000);
    // Code points beyond ASCII hash as their UTF-8 bytes.
    expect(bucketOf('é😀x', 2 ** 32)).toBe(0x64c3f45c);
    expect(bucketOf('ref', 1)).toBe(0);
  });
});

describe('doc chunks', () => {
  // Same second, ids going down and up (zigzag deltas), large ids and conversation numbers.
  const docs: Doc[] = Array.from({ length: 2 * DOC_CHUNK + 76 }, (_, k) => ({
    m: k % 3 === 0 ? 9_000_000 - k : 10 + k * 1000,
    c: 1 + (k % 17) * 40_000,
    i: 1 + (k % 4),
    t: 1_700_000_000 + Math.floor(k / 5),
  }));

  it('hold DOC_CHUNK docs each, each chunk readable on its own', () => {
    const chunks = encodeDocs(docs);
    expect(chunks).toHaveLength(3);
    expect(chunks.map((c) => decodeDocs(c).length)).toEqual([DOC_CHUNK, DOC_CHUNK, 76]);
    expect(decodeDocs(chunks[1])[0]).toEqual(docs[DOC_CHUNK]);
    expect(chunks.flatMap((c) => decodeDocs(c))).toEqual(docs);
  });

  it('take about six bytes a doc as chat writes them, so a chunk stays within one 4 KB read unit', () => {
    // An account's messages: ids climbing through other accounts' ids, seconds apart, a few thousand conversations.
    const chat: Doc[] = Array.from({ length: DOC_CHUNK }, (_, k) => ({
      m: 5_000_000 + k * 37,
      c: 1 + ((k * 7919) % 3000),
      i: 1 + (k % 3),
      t: 1_700_000_000 + k * 45,
    }));
    const [chunk] = encodeDocs(chat);
    expect(chunk.length / DOC_CHUNK).toBeLessThanOrEqual(6);
    expect(chunk.length).toBeLessThan(4096);
    expect(decodeDocs(chunk)).toEqual(chat);
  });

  it('none for no docs', () => {
    expect(encodeDocs([])).toEqual([]);
    expect(decodeDocs(new Uint8Array())).toEqual([]);
  });
});

describe('postings', () => {
  it('format 3: each position carries the code points after it; doc data follows each doc', () => {
    const docs: Doc[] = [
      { m: 5, c: 1, i: 1, t: 10 },
      { m: 3, c: 2, i: 1, t: 10 },
      { m: 8, c: 2, i: 2, t: 99 },
    ];
    const p: Posting = new Map([
      [0, [0, 4]],
      [2, [7]],
    ]);
    const follows: Follows = new Map([
      [0, ['cel', 'é😀']],
      [2, ['']],
    ]);
    const enc = encodePosting(p, docs, follows);
    const inline = new Map<number, Doc>();
    const after: Follows = new Map();
    expect(decodePosting(enc, new Map(), inline, after)).toEqual(p);
    expect(after).toEqual(follows);
    expect(inline).toEqual(
      new Map([
        [0, docs[0]],
        [2, docs[2]],
      ]),
    );
    // Read without knowing its format, the same bytes are not the same posting.
    expect(() => expect(decodePosting(enc)).toEqual(p)).toThrow();
  });

  it('decode into a posting already read (a solo trigram’s parts, one bucket after another)', () => {
    const into: Posting = new Map([[1, [3]]]);
    decodePosting(
      encodePosting(
        new Map([
          [4, [0, 2]],
          [9, [1]],
        ]),
      ),
      into,
    );
    expect([...into]).toEqual([
      [1, [3]],
      [4, [0, 2]],
      [9, [1]],
    ]);
  });

  it('a bucket answers only the trigrams asked for', () => {
    const seg = buildSegment('s', [{ m: 1, c: 1, i: 1, t: 1, content: 'refund please' }], 1);
    expect(seg.buckets).toHaveLength(1);
    const into = new Map<string, Posting>();
    readBucket(seg.buckets[0], new Set(['ref', 'zzz', 'ase']), into);
    expect([...into.keys()].sort()).toEqual(['ase', 'ref']);
    expect(into.get('ase')).toEqual(new Map([[0, [10]]]));
  });
});

describe('segments', () => {
  it('a trigram too common for one item is split into parts of at most PART_BYTES, each with absolute doc numbers', () => {
    const messages = Array.from({ length: 400 }, (_, k) => ({ m: k + 1, c: k + 1, i: 1, t: 1000 + k, content: 'a'.repeat(200) }));
    const seg = buildSegment('s', messages);
    const info = seg.dir.solo.aaa;
    expect(info.parts).toBeGreaterThan(1);
    const parts = seg.soloParts.get('aaa')!;
    expect(parts).toHaveLength(info.parts);
    const seen: number[] = [];
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(PART_BYTES);
      const p = decodePosting(part);
      seen.push(...p.keys());
      for (const positions of p.values()) expect(positions).toEqual(Array.from({ length: 198 }, (_, k) => k));
    }
    expect(seen).toEqual(Array.from({ length: 400 }, (_, k) => k));
    expect(allPostings(seg.buckets, seg.soloParts, seg.dir.v).get('aaa')!.size).toBe(400);
  });

  it('format 3 sends a trigram without its following code points solo, never into a bucket', () => {
    const docs: Doc[] = [{ m: 1, c: 1, i: 1, t: 1 }];
    const postings = new Map<string, Posting>([
      ['abc', new Map([[0, [0]]])],
      ['bcd', new Map([[0, [1]]])],
    ]);
    const seg = buildFromPostings('s', docs, postings, 3, new Map([['abc', new Map([[0, ['d']]])]]));
    expect(Object.keys(seg.dir.solo)).toEqual(['bcd']);
    expect(seg.dir.v).toBe(3);
    const follows = new Map<string, Follows>();
    const all = allPostings(seg.buckets, seg.soloParts, 3, follows);
    expect(all).toEqual(postings);
    expect(follows.get('abc')).toEqual(new Map([[0, ['d']]]));
  });

  it('the directory’s bucket cost is its largest bucket', () => {
    const messages = Array.from({ length: 300 }, (_, k) => ({
      m: k + 1,
      c: k + 1,
      i: 1,
      t: 1000 + k,
      content: `note ${k} about parcel ${k * 13}`,
    }));
    const seg = buildSegment('s', messages);
    expect(seg.dir.b).toBe(seg.buckets.length);
    expect(seg.dir.bb).toBe(Math.max(...seg.buckets.map((b) => b.length)));
  });

  it('nothing to index: one empty bucket, no docs, no solo trigram', () => {
    const seg = buildSegment('e', []);
    expect(seg.dir).toEqual({ id: 'e', n: 0, b: 1, bb: 0, solo: {}, v: 3 });
    expect(seg.docChunks).toEqual([]);
    expect(allPostings(seg.buckets, seg.soloParts, 3).size).toBe(0);
    // Messages shorter than a trigram leave docs but no postings.
    const short = buildSegment('s', [{ m: 1, c: 1, i: 1, t: 1, content: 'ok' }]);
    expect(short.dir.n).toBe(1);
    expect(allPostings(short.buckets, short.soloParts, 3).size).toBe(0);
  });
});

describe('packs and the plain scan', () => {
  it('no messages: an empty pack, no packs', () => {
    expect(decodePack(encodePack([]))).toEqual([]);
    expect(packsOf([])).toEqual([]);
  });

  it('the scan matches text only, ignoring case', () => {
    expect(containsTerm('Refund PLEASE', 'refund p')).toBe(true);
    expect(containsTerm('Refund', 'refunds')).toBe(false);
    expect(containsTerm(null, 'x')).toBe(false);
    expect(containsTerm({ content: 'refund' }, 'refund')).toBe(false);
  });
});
