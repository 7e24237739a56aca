import { codePoints, GRAM, trigramPositions } from './search-text.ts';

// Index items of a sealed segment: the trigram postings of a set of messages, packed so that a term
// reads about one small item per trigram it needs, and written in few write units per message.
//
//  - docs: the segment's messages in (created_at, id) order, local number = position; stored in chunks
//    of DOC_CHUNK docs (created_at as a delta, message id as a zigzag delta, conversation id, inbox id:
//    varints, ~5-6 bytes a doc, so a chunk stays under one 4 KB read unit).
//  - postings: per trigram, for each doc holding it (ascending), the doc-number delta, the count of
//    positions and the position deltas, as varints.
//  - a trigram whose posting is small goes to one of B hash buckets (bucket items of about BUCKET_BYTES:
//    B = total small bytes / BUCKET_BYTES); a large one is "solo": its own item(s), split into parts of
//    at most PART_BYTES, so a common trigram never inflates the bucket a rare one shares.
//  - format 2 (`v: 2` in the directory): a bucket posting also carries each doc's data after its
//    positions (created_at delta, zigzag message id delta, conversation, inbox), so a term whose cover
//    holds a bucket trigram — a rare term — reads no doc chunk. Solo postings stay positions only.
//  - format 3: a bucket posting also carries, with each position, the (up to) FOLLOW code points of the
//    content after the trigram, so one bucket trigram vouches for six code points of a term: a rare term
//    of up to six code points reads one bucket item per segment instead of two. A merge writes format 3
//    only when every segment it merges is format 3 (older buckets have no following code points).
//  - gram partitions (`g` in the directory): a large segment's buckets are exactly `g` (a power of two the
//    account shares among its large segments), bucket = FNV-1a mod g, and are stored in the account's gram
//    partitions instead of the segment's own, so one Query reads a trigram's bucket of every large segment
//    (shared/search/index.ts, docs/search.md#gram-partitions). The bytes are the same.

export const DOC_CHUNK = 512;
/** The format new segments are written in (above). */
export const FORMAT = 3;
/** Code points after a trigram that a format 3 bucket posting carries with each position. */
export const FOLLOW = 3;
/** About what a doc takes in a chunk (a reader's cost estimate). */
export const DOC_BYTES = 6;
export const BUCKET_BYTES = 2_000;
export const SOLO_BYTES = 1_500;
export const PART_BYTES = 60_000;

export interface Doc {
  /** Message id. */
  m: number;
  /** Conversation display id. */
  c: number;
  /** Inbox id. */
  i: number;
  /** created_at, seconds. */
  t: number;
}

export interface SourceMessage extends Doc {
  content: string;
}

// ── varints ──────────────────────────────────────────────────────────────────────────────────────

export class Writer {
  private buf: number[] = [];
  uint(n: number) {
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`varint out of range: ${n}`);
    while (n >= 0x80) {
      this.buf.push((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    this.buf.push(n);
  }
  bytes(b: Uint8Array) {
    this.uint(b.length);
    for (const x of b) this.buf.push(x);
  }
  get length() {
    return this.buf.length;
  }
  done(): Uint8Array {
    return Uint8Array.from(this.buf);
  }
}

export class Reader {
  private at = 0;
  constructor(private readonly b: Uint8Array) {}
  get more() {
    return this.at < this.b.length;
  }
  uint(): number {
    let n = 0;
    let mul = 1;
    for (;;) {
      const x = this.b[this.at++];
      if (x === undefined) throw new Error('truncated varint');
      n += (x & 0x7f) * mul;
      if (x < 0x80) return n;
      mul *= 0x80;
    }
  }
  bytes(): Uint8Array {
    const n = this.uint();
    const out = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** FNV-1a of the trigram's UTF-8 bytes: the bucket both sides compute. */
export function bucketOf(gram: string, buckets: number): number {
  let h = 0x811c9dc5;
  for (const x of utf8.encode(gram)) {
    h ^= x;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % buckets;
}

// A doc, delta-coded against the one before it in the same run: created_at delta, zigzag message id
// delta, conversation, inbox (doc chunks, and format 2 bucket postings).
const zigzag = (n: number) => (n >= 0 ? n * 2 : -n * 2 - 1);
const unzigzag = (n: number) => (n % 2 === 0 ? n / 2 : -(n + 1) / 2);

export function docWriter(w: Writer): (d: Doc) => void {
  let t = 0;
  let m = 0;
  return (d) => {
    w.uint(d.t - t);
    w.uint(zigzag(d.m - m));
    w.uint(d.c);
    w.uint(d.i);
    t = d.t;
    m = d.m;
  };
}

export function docReader(r: Reader): () => Doc {
  let t = 0;
  let m = 0;
  return () => {
    t += r.uint();
    m += unzigzag(r.uint());
    return { m, c: r.uint(), i: r.uint(), t };
  };
}

// ── postings ─────────────────────────────────────────────────────────────────────────────────────

/** doc number → positions, docs ascending. */
export type Posting = Map<number, number[]>;
/** doc number → the code points following the trigram at each of its positions (format 3 buckets). */
export type Follows = Map<number, string[]>;

/**
 * A posting's bytes. With `docs` (format 2 buckets), each doc's data follows its positions; the docs
 * ascend in `docOrder`, so created_at deltas are never negative. With `follows` (format 3 buckets), each
 * position is followed by the code points after it.
 */
export function encodePosting(p: Posting, docs?: Doc[], follows?: Follows): Uint8Array {
  const w = new Writer();
  const writeDoc = docs ? docWriter(w) : undefined;
  let last = -1;
  for (const [doc, positions] of p) {
    w.uint(doc - last - 1);
    last = doc;
    w.uint(positions.length);
    let lp = 0;
    const after = follows?.get(doc);
    positions.forEach((pos, k) => {
      w.uint(pos - lp);
      lp = pos;
      if (follows) w.bytes(utf8.encode(after![k]));
    });
    writeDoc?.(docs![doc]);
  }
  return w.done();
}

/**
 * Decodes a posting; `inline` (format 2 buckets) receives each doc's data, `follows` (format 3 buckets)
 * the code points after each position.
 */
export function decodePosting(b: Uint8Array, into: Posting = new Map(), inline?: Map<number, Doc>, follows?: Follows): Posting {
  const r = new Reader(b);
  const readDoc = inline ? docReader(r) : undefined;
  let doc = -1;
  while (r.more) {
    doc += r.uint() + 1;
    const n = r.uint();
    const positions: number[] = [];
    const after: string[] = [];
    let pos = 0;
    for (let k = 0; k < n; k++) {
      pos += r.uint();
      positions.push(pos);
      if (follows) after.push(fromUtf8.decode(r.bytes()));
    }
    into.set(doc, positions);
    follows?.set(doc, after);
    if (readDoc) inline!.set(doc, readDoc());
  }
  return into;
}

// ── building a segment ───────────────────────────────────────────────────────────────────────────

export interface SoloInfo {
  bytes: number;
  parts: number;
}

/** What a reader must know of a segment to address its items (kept in the account's index head). */
export interface SegmentDirectory {
  id: string;
  /** Number of docs. */
  n: number;
  /** Number of hash buckets. */
  b: number;
  /** Bytes of the largest bucket (the cost of reading a bucket trigram). */
  bb: number;
  /** Solo trigrams: bytes and parts. */
  solo: Record<string, SoloInfo>;
  /** Format (absent: 1, before bucket postings carried doc data). */
  v?: number;
  /** Gram partitions: the buckets are stored in the account's `g` gram partitions (absent: in the segment's own). */
  g?: number;
  /** With `g`: the bytes of all its buckets (what it adds to a gram partition's Query, over `g`). */
  bt?: number;
  /**
   * With `g`: the gram partitions where it has no item (no trigram of it that goes to a bucket hashes there), as a
   * bitmap (bit `p % 8` of byte `p >> 3` set: partition `p` empty), trailing zero bytes dropped, base64url: `''` when
   * every partition holds something. Absent (segments written before): unknown, every partition may hold some.
   */
  ge?: string;
}

/** The `ge` mark of a gram-partitioned segment's buckets (bucket `p` goes to gram partition `p`). */
export function emptyPartitions(buckets: Uint8Array[]): string {
  const bits = new Uint8Array(Math.ceil(buckets.length / 8));
  buckets.forEach((b, p) => {
    if (!b.length) bits[p >> 3] |= 1 << (p & 7);
  });
  let end = bits.length;
  while (end && !bits[end - 1]) end--;
  return Buffer.from(bits.subarray(0, end)).toString('base64url');
}

/**
 * Whether a segment may have an item in gram partition `part`: false only when its `ge` mark says it has none
 * (a segment without the mark may have one anywhere).
 */
export function mayHoldPartition(dir: Pick<SegmentDirectory, 'ge'>, part: number): boolean {
  if (dir.ge === undefined) return true;
  const bits = Buffer.from(dir.ge, 'base64url');
  return !((bits[part >> 3] ?? 0) & (1 << (part & 7)));
}

/**
 * How a segment's buckets are laid out, from its messages and the bytes of its bucket postings: a number of
 * gram partitions, or undefined for buckets of its own.
 */
export type Layout = (docs: number, bucketBytes: number) => number | undefined;

export interface BuiltSegment {
  dir: SegmentDirectory;
  docs: Doc[];
  /** Doc chunk number → bytes. */
  docChunks: Uint8Array[];
  /** Bucket number → bytes (entries: gram, posting). */
  buckets: Uint8Array[];
  /** Solo gram → parts. */
  soloParts: Map<string, Uint8Array[]>;
}

export const docOrder = (a: Doc, b: Doc) => a.t - b.t || a.m - b.m;

export function encodeDocs(docs: Doc[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < docs.length; i += DOC_CHUNK) {
    const w = new Writer();
    const write = docWriter(w);
    for (const d of docs.slice(i, i + DOC_CHUNK)) write(d);
    out.push(w.done());
  }
  return out;
}

export function decodeDocs(b: Uint8Array): Doc[] {
  const r = new Reader(b);
  const read = docReader(r);
  const out: Doc[] = [];
  while (r.more) out.push(read());
  return out;
}

/** Splits a posting into parts of at most PART_BYTES, each a valid posting on its own (absolute first doc). */
function splitPosting(p: Posting): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let cur: Posting = new Map();
  let size = 0;
  for (const [doc, positions] of p) {
    cur.set(doc, positions);
    size += 2 + positions.length * 2;
    if (size >= PART_BYTES) {
      parts.push(encodePosting(cur));
      cur = new Map();
      size = 0;
    }
  }
  if (cur.size) parts.push(encodePosting(cur));
  return parts;
}

/**
 * Builds a segment from postings over docs already in `docOrder` (used for sealing and for merging).
 * Format 3 needs `follows` for every trigram that goes to a bucket; one without them goes solo.
 */
export function buildFromPostings(
  id: string,
  docs: Doc[],
  postings: Map<string, Posting>,
  format = FORMAT,
  follows?: Map<string, Follows>,
  layout?: Layout,
): BuiltSegment {
  const solo: Record<string, SoloInfo> = {};
  const soloParts = new Map<string, Uint8Array[]>();
  const small: [string, Uint8Array][] = [];
  let smallBytes = 0;
  for (const [gram, p] of postings) {
    // Solo or bucket by the size it would take in a bucket (with its doc data in format 2, and the
    // following code points in format 3).
    const after = format >= 3 ? follows?.get(gram) : undefined;
    const complete = format < 3 || (!!after && [...p.keys()].every((doc) => after.get(doc)?.length === p.get(doc)!.length));
    const bucketed = complete ? encodePosting(p, format >= 2 ? docs : undefined, after) : undefined;
    if (!bucketed || bucketed.length > SOLO_BYTES) {
      const enc = format >= 2 || !bucketed ? encodePosting(p) : bucketed;
      const parts = enc.length > PART_BYTES ? splitPosting(p) : [enc];
      solo[gram] = { bytes: enc.length, parts: parts.length };
      soloParts.set(gram, parts);
    } else {
      small.push([gram, bucketed]);
      smallBytes += bucketed.length + 8;
    }
  }
  const g = layout?.(docs.length, smallBytes);
  const b = g ?? Math.max(1, Math.ceil(smallBytes / BUCKET_BYTES));
  const writers = Array.from({ length: b }, () => new Writer());
  for (const [gram, enc] of small) {
    const w = writers[bucketOf(gram, b)];
    w.bytes(utf8.encode(gram));
    w.bytes(enc);
  }
  const buckets = writers.map((w) => w.done());
  return {
    dir: {
      id,
      n: docs.length,
      b,
      bb: Math.max(...buckets.map((x) => x.length)),
      solo,
      ...(format >= 2 ? { v: format } : {}),
      ...(g ? { g, bt: buckets.reduce((t, x) => t + x.length, 0), ge: emptyPartitions(buckets) } : {}),
    },
    docs,
    docChunks: encodeDocs(docs),
    buckets,
    soloParts,
  };
}

/** A new segment from messages: docs in (created_at, id) order, every trigram of every content. */
export function buildSegment(id: string, messages: SourceMessage[], format = FORMAT, layout?: Layout): BuiltSegment {
  const sorted = [...messages].sort(docOrder);
  const postings = new Map<string, Posting>();
  const follows = new Map<string, Follows>();
  sorted.forEach((m, doc) => {
    const cps = format >= 3 ? codePoints(m.content) : [];
    for (const [gram, positions] of trigramPositions(m.content)) {
      let p = postings.get(gram);
      if (!p) postings.set(gram, (p = new Map()));
      p.set(doc, positions);
      if (format < 3) continue;
      let f = follows.get(gram);
      if (!f) follows.set(gram, (f = new Map()));
      f.set(
        doc,
        positions.map((at) => cps.slice(at + GRAM, at + GRAM + FOLLOW).join('')),
      );
    }
  });
  return buildFromPostings(
    id,
    sorted.map(({ m, c, i, t }) => ({ m, c, i, t })),
    postings,
    format,
    follows,
    layout,
  );
}

/** A format 3 bucket gram's following code points, filled as its posting is decoded. */
const followsOf = (format: number, follows: Map<string, Follows>, gram: string): Follows | undefined => {
  if (format < 3) return undefined;
  let f = follows.get(gram);
  if (!f) follows.set(gram, (f = new Map()));
  return f;
};

/**
 * The postings a bucket holds for the wanted trigrams; a format 2 bucket's doc data goes to `inline`, a
 * format 3 bucket's following code points to `follows`.
 */
export function readBucket(
  b: Uint8Array,
  wanted: Set<string>,
  into: Map<string, Posting>,
  format = 1,
  inline = new Map<number, Doc>(),
  follows = new Map<string, Follows>(),
) {
  const r = new Reader(b);
  while (r.more) {
    const gram = fromUtf8.decode(r.bytes());
    const enc = r.bytes();
    if (wanted.has(gram))
      into.set(gram, decodePosting(enc, into.get(gram), format >= 2 ? inline : undefined, followsOf(format, follows, gram)));
  }
}

/**
 * Every posting of a segment (for a merge): buckets (of `format`) and solo parts decoded; a format 3
 * segment's bucket grams leave their following code points in `follows`.
 */
export function allPostings(
  buckets: Uint8Array[],
  solo: Map<string, Uint8Array[]>,
  format = 1,
  follows = new Map<string, Follows>(),
): Map<string, Posting> {
  const out = new Map<string, Posting>();
  const inline = format >= 2 ? new Map<number, Doc>() : undefined;
  for (const b of buckets) {
    const r = new Reader(b);
    while (r.more) {
      const gram = fromUtf8.decode(r.bytes());
      out.set(gram, decodePosting(r.bytes(), out.get(gram), inline, followsOf(format, follows, gram)));
    }
  }
  for (const [gram, parts] of solo) {
    const p: Posting = out.get(gram) ?? new Map();
    for (const part of parts) decodePosting(part, p);
    out.set(gram, p);
  }
  return out;
}

/**
 * Merges segments (docs of each in `docOrder`, and the segments' doc ranges not interleaved only by
 * chance: docs are re-sorted) into one built segment: format 3 when every part brings its bucket grams'
 * following code points (`follows`), else format 2.
 */
export function mergeSegments(
  id: string,
  parts: { docs: Doc[]; postings: Map<string, Posting>; follows?: Map<string, Follows> }[],
  layout?: Layout,
): BuiltSegment {
  const all = parts.flatMap((p, k) => p.docs.map((d, local) => ({ d, k, local })));
  all.sort((x, y) => docOrder(x.d, y.d));
  const renumber = parts.map((p) => new Array<number>(p.docs.length));
  all.forEach((x, doc) => {
    renumber[x.k][x.local] = doc;
  });
  const format = parts.every((p) => p.follows) ? 3 : 2;
  const postings = new Map<string, Posting>();
  const follows = new Map<string, Follows>();
  parts.forEach((p, k) => {
    for (const [gram, posting] of p.postings) {
      let out = postings.get(gram);
      if (!out) postings.set(gram, (out = new Map()));
      for (const [doc, positions] of posting) out.set(renumber[k][doc], positions);
      const after = p.follows?.get(gram);
      if (format < 3 || !after) continue;
      let f = follows.get(gram);
      if (!f) follows.set(gram, (f = new Map()));
      for (const [doc, list] of after) f.set(renumber[k][doc], list);
    }
  });
  // Postings must list docs ascending.
  for (const [gram, p] of postings) postings.set(gram, new Map([...p].sort((a, b) => a[0] - b[0])));
  return buildFromPostings(
    id,
    all.map((x) => x.d),
    postings,
    format,
    follows,
    layout,
  );
}
