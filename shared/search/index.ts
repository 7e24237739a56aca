import { randomBytes } from 'node:crypto';
import * as keys from '#shared/db/keys.ts';
import type { Key } from '#shared/db/keys.ts';
import {
  deleteSegment,
  getSearchHead,
  getSegmentDocs,
  getGramPartition,
  getSegmentItems,
  getWholeSegment,
  putSearchHead,
  searchableMessagesBetween,
  writePacks,
  writeSegment,
  type PackEntry,
  type SearchHead,
  type SegmentEntry,
} from '#shared/db/repositories/search-index.ts';
import { log } from '#shared/log.ts';
import {
  allPostings,
  bucketOf,
  buildSegment,
  decodeDocs,
  decodePosting,
  DOC_BYTES,
  DOC_CHUNK,
  mayHoldPartition,
  mergeSegments,
  readBucket,
  FOLLOW,
  type BuiltSegment,
  type Doc,
  type Layout,
  type Follows,
  type Posting,
  type SourceMessage,
} from '#shared/codec/search-segment.ts';
import { decodePack, PACK_BYTES, packsOf } from '#shared/codec/search-pack.ts';
import { containsTerm, cover, startsOf, termWindows, type Chosen } from '#shared/codec/search-text.ts';

// The `q` index of an account: sealed segments (trigram postings, shared/codec/search-segment.ts) for the
// messages created before the head's watermark, and the tail after it read straight from the
// searchable-message index (AP72), so a message is found the moment its POST returned.
//
// Sealing (the pipeline, after message_created, at most every SEAL_EVERY_MS per account and container):
// the messages created in [watermark, now - SEAL_LAG_S) become a pack (pack.ts) once there are PACK_MIN
// of them, and a segment from the packs and them once there are SEAL_MIN. Segments merge by size ratio
// (MERGE_RATIO, below), so an account keeps about one segment per power of MERGE_RATIO of its message
// count, and a rare term reads about one item per segment.

/**
 * Messages younger than this stay in the tail, so a write in flight lands before its second is sealed: a
 * message's created_at is taken in the request that writes it, and no function that writes messages runs
 * longer than 29 s (the API's timeout; pipeline functions 10 and 20 s), twice over.
 */
export const SEAL_LAG_S = 60;
/** The fewest messages (packs and tail) worth a segment. */
export const SEAL_MIN = 200;
/**
 * The fewest tail messages worth a pack (short of a segment): a pack and the head cost a few write units,
 * fewer tail messages cost a search little to scan.
 */
export const PACK_MIN = 50;
/**
 * After a segment is added, the newest segments merge into one (in one go) while the next older one is at
 * most MERGE_RATIO times what the newer ones hold together: sizes then grow by at least this ratio from
 * newest to oldest. Against merging pairs of one power-of-two tier (an account kept up to 5 segments at
 * 10,000 messages, 8 at 100,000), this keeps at most 3 at 10,000 messages, 4 at 100,000 and 6 at a
 * million (a rare term reads about one bucket item per segment), for about 10 % more segment writes at
 * 10,000 and 25 % more at 100,000 (`test/unit/search/merge-policy.test.ts` simulates both).
 */
export const MERGE_RATIO = 4;
/**
 * Segments of at least this many messages keep their buckets in the account's gram partitions
 * (docs/search.md#gram-partitions): a rare term then reads one Query for all of them, and one bucket item
 * for each smaller segment (at most two: sizes fall by more than MERGE_RATIO, and the newest holds SEAL_MIN).
 */
export const GRAM_MIN = 4096;
/** Gram partitions are sized so that each holds about this many bytes of all large segments' buckets. */
export const GRAM_BYTES = 2048;
/** The fewest gram partitions (a power of two). */
export const GRAM_PARTS_MIN = 64;
/**
 * A segment takes the gram partitions only if it has at least this many messages for each partition beyond
 * the kilobytes of its buckets: it writes (and, merged away, deletes) one item in each, of at least one
 * write unit, where its own buckets would take a unit a kilobyte; this bounds what they cost a message more.
 */
export const GRAM_DOCS_PER_PART = 64;

/** When a segment takes the gram partitions (tests lower both to lay small segments out so). */
export interface GramRule {
  min: number;
  docsPerPart: number;
}

/**
 * The layout of a segment built while `others` stay: the gram partitions when it holds at least `min`
 * messages, as many as the large segments' bucket bytes (its own with theirs) need at GRAM_BYTES each and
 * never fewer than any of theirs (a power of two), if it holds `docsPerPart` messages for each partition
 * beyond its bucket kilobytes; else its own buckets.
 */
export function gramLayout(others: SegmentEntry[], rule: GramRule = { min: GRAM_MIN, docsPerPart: GRAM_DOCS_PER_PART }): Layout {
  return (docs, bucketBytes) => {
    if (docs < rule.min) return undefined;
    const large = others.filter((s) => s.g);
    const bytes = large.reduce((t, s) => t + (s.bt ?? 0), bucketBytes);
    let parts = Math.max(GRAM_PARTS_MIN, ...large.map((s) => s.g!));
    while (bytes / parts > GRAM_BYTES) parts *= 2;
    return (parts - Math.ceil(bucketBytes / 1024)) * rule.docsPerPart <= docs ? parts : undefined;
  };
}

/** A segment or pack written or gone: its gram partitions, if any, and its mark of the empty ones. */
type Gone = { id: string; g?: number; ge?: string };

/** Merged-away segments stay readable this long for readers holding an older head. */
const GARBAGE_AFTER_S = 600;

export interface Hit {
  /** Message id, conversation display id, inbox id, created_at. */
  m: number;
  c: number;
  i: number;
  t: number;
}

/** How many of the newest segments (of these sizes, oldest first) merge into one now: 0 or 1 for none. */
export function newestToMerge(sizes: number[]): number {
  if (!sizes.length) return 0;
  let held = sizes.at(-1)!;
  let k = 1;
  while (k < sizes.length && sizes[sizes.length - 1 - k] <= MERGE_RATIO * held) held += sizes[sizes.length - 1 - k++];
  return k;
}

const newSegmentId = (to: number) => `${String(to).padStart(10, '0')}-${randomBytes(4).toString('hex')}`;

async function readSegment(
  accountId: number,
  s: SegmentEntry,
): Promise<{ docs: Doc[]; postings: Map<string, Posting>; follows?: Map<string, Follows> }> {
  const [items, grams] = await Promise.all([
    getWholeSegment(accountId, s.id),
    s.g ? getSegmentItems(heldPartitions(s).map((part) => keys.searchGrams(accountId, s.g!, part, s.id))) : [],
  ]);
  const buckets: Uint8Array[] = [];
  const solo = new Map<string, Uint8Array[]>();
  const docs: Doc[] = [];
  const chunks = Math.ceil(s.n / DOC_CHUNK);
  for (let k = 0; k < chunks; k++) docs.push(...decodeDocs(items.get(keys.searchDocs(accountId, s.id, k).sk) ?? new Uint8Array()));
  if (s.g) buckets.push(...grams);
  else for (let b = 0; b < s.b; b++) buckets.push(items.get(keys.searchBucket(accountId, s.id, b).sk) ?? new Uint8Array());
  for (const [gram, info] of Object.entries(s.solo)) {
    solo.set(
      gram,
      Array.from({ length: info.parts }, (_, p) => items.get(keys.searchSolo(accountId, s.id, gram, p).sk) ?? new Uint8Array()),
    );
  }
  const follows = new Map<string, Follows>();
  const postings = allPostings(buckets, solo, s.v, follows);
  return { docs, postings, ...((s.v ?? 1) >= 3 ? { follows } : {}) };
}

/** The gram partitions a large segment may have an item in (all of them without its `ge` mark). */
const heldPartitions = (s: Pick<SegmentEntry, 'g' | 'ge'>) =>
  Array.from({ length: s.g ?? 0 }, (_, part) => part).filter((part) => mayHoldPartition(s, part));

/** A segment's items in the gram partitions, for deleteSegment. */
const gramsOf = (s: Gone) => (s.g ? { g: s.g, parts: heldPartitions(s) } : undefined);

const entryOf = (seg: BuiltSegment, from: number, to: number): SegmentEntry => ({ ...seg.dir, from, to });

/** The packs' messages (one BatchGet), oldest first. */
async function readPacks(accountId: number, packs: PackEntry[]): Promise<SourceMessage[]> {
  const data = await getSegmentItems(packs.map((p) => keys.searchPack(accountId, p.id)));
  return data.flatMap((d) => decodePack(d));
}

/**
 * Seals the account's tail older than SEAL_LAG_S: into a segment once the packs and it hold at least
 * `min` (SEAL_MIN) messages, merging a tier that filled up; else, when it holds at least `packMin`
 * (PACK_MIN), into a pack (the last pack extended while both fit one). Safe to run concurrently: the head
 * is replaced only if unchanged, and a loser's items are removed. Returns whether the head changed.
 */
export async function sealSearchIndex(
  accountId: number,
  opts: { now?: number; min?: number; packMin?: number; gram?: GramRule } = {},
): Promise<boolean> {
  const nowS = opts.now ?? Math.floor(Date.now() / 1000);
  const head = await getSearchHead(accountId, true);
  const to = nowS - SEAL_LAG_S;
  if (to <= head.watermark) return false;
  const messages = await searchableMessagesBetween(accountId, head.watermark, to);
  const packed = head.packs.reduce((t, p) => t + p.n, 0);
  const written: Gone[] = [];
  const replaced: string[] = [];
  let segments = [...head.segments];
  let packs = [...head.packs];
  if (packed + messages.length >= (opts.min ?? SEAL_MIN)) {
    const seg = buildSegment(
      newSegmentId(to),
      [...(await readPacks(accountId, packs)), ...messages],
      undefined,
      gramLayout(segments, opts.gram),
    );
    await writeSegment(accountId, seg);
    written.push(seg.dir);
    segments.push(entryOf(seg, packs[0]?.from ?? head.watermark, to));
    replaced.push(...packs.map((p) => p.id));
    packs = [];
  } else {
    if (messages.length < (opts.packMin ?? PACK_MIN)) return false;
    // The last pack takes the new messages while both still fit one item.
    const last = packs.at(-1);
    const extend = last && last.bytes < PACK_BYTES / 2;
    const toPack = extend ? [...(await readPacks(accountId, [last])), ...messages] : messages;
    if (extend) {
      packs.pop();
      replaced.push(last.id);
    }
    const from = extend ? last.from : head.watermark;
    const made = packsOf(toPack).map((pack) => ({ id: newSegmentId(to), ...pack }));
    await writePacks(accountId, made);
    written.push(...made.map((p) => ({ id: p.id })));
    packs.push(...made.map((p) => ({ id: p.id, from, n: p.messages.length, bytes: p.data.length })));
  }
  const merged: Gone[] = [];
  // The newest segments that MERGE_RATIO says merge, in one go.
  const k = newestToMerge(segments.map((x) => x.n));
  if (k >= 2) {
    const last = segments.slice(-k);
    const seg = mergeSegments(
      newSegmentId(last.at(-1)!.to),
      await Promise.all(last.map((x) => readSegment(accountId, x))),
      gramLayout(segments.slice(0, -k), opts.gram),
    );
    await writeSegment(accountId, seg);
    written.push(seg.dir);
    merged.push(...last.map(({ id, g, ge }) => ({ id, g, ge })));
    segments = [...segments.slice(0, -k), entryOf(seg, last[0].from, last.at(-1)!.to)];
  }
  const stale = head.garbage.filter((g) => g.at <= nowS - GARBAGE_AFTER_S);
  const gone: Gone[] = [...replaced.map((id) => ({ id })), ...merged];
  const isWritten = (id: string) => written.some((w) => w.id === id);
  const garbage = [
    ...head.garbage.filter((g) => g.at > nowS - GARBAGE_AFTER_S),
    ...gone.filter((x) => !isWritten(x.id)).map(({ id, g, ge }) => ({ id, at: nowS, ...(g ? { g, ge } : {}) })),
  ];
  // Segments written and merged away in this same run were never named by a head: drop them now.
  const transient = gone.filter((x) => isWritten(x.id));
  const ok = await putSearchHead(accountId, head, { watermark: to, segments, packs, garbage });
  if (!ok) {
    await Promise.all(written.map((w) => deleteSegment(accountId, w.id, gramsOf(w))));
    return false;
  }
  await Promise.all([...stale, ...transient].map((x) => deleteSegment(accountId, x.id, gramsOf(x))));
  return true;
}

const sealedAt = new Map<number, number>();
/** Per container: an account's tail is looked at no more often than this. */
export const SEAL_EVERY_MS = 60_000;

/** For the pipeline after a message is created: seal the account's tail when it is due (never throws). */
export async function sealWhenDue(accountId: number): Promise<void> {
  const last = sealedAt.get(accountId) ?? 0;
  if (Date.now() - last < SEAL_EVERY_MS) return;
  sealedAt.set(accountId, Date.now());
  try {
    await sealSearchIndex(accountId);
  } catch (err) {
    log.warn('search index seal failed', { accountId, error: String(err) });
  }
}

// ── reading ──────────────────────────────────────────────────────────────────────────────────────

/**
 * Readers keep an account's head this long per container. An older head answers the same: the
 * segments it names are kept GARBAGE_AFTER_S after a merge, and its older watermark only makes the
 * tail (never removed) longer.
 */
export const HEAD_TTL_MS = 10_000;
const heads = new Map<number, { head: SearchHead; at: number }>();

async function cachedHead(accountId: number): Promise<SearchHead> {
  const hit = heads.get(accountId);
  if (hit && Date.now() - hit.at < HEAD_TTL_MS) return hit.head;
  const head = await getSearchHead(accountId);
  if (heads.size > 1000) heads.clear();
  heads.set(accountId, { head, at: Date.now() });
  return head;
}

interface Plan {
  seg: SegmentEntry;
  chosen: Chosen[];
  /** Per chosen gram: the keys to read. */
  keys: Map<string, Key[]>;
}

/**
 * The messages of these inboxes whose content contains `term` (case-insensitive): the tail and the packs
 * scanned, the segments through their postings (the packs and postings in one BatchGet, beside the tail's
 * Query). Terms shorter than a trigram scan every searchable message (AP72).
 */
export async function searchIndex(accountId: number, inboxIds: number[] | 'all', term: string): Promise<Hit[]> {
  const windows = termWindows(term);
  const none = inboxIds !== 'all' && !inboxIds.length;
  if (none) return [];
  const head: Pick<SearchHead, 'watermark' | 'segments' | 'packs'> = windows
    ? await cachedHead(accountId)
    : { watermark: 0, segments: [], packs: [] };
  const scope = inboxIds === 'all' ? undefined : new Set(inboxIds);
  const inScope = { has: (i: number) => !scope || scope.has(i) };

  // The gram partitions wanted (pk → which), each read by one Query for every large segment.
  const partitions = new Map<string, { g: number; part: number }>();
  // A segment that marks empty (`ge`) the gram partition of one of the term's bucket trigrams has no message
  // with that trigram, so none with the term: it reads nothing (and a gram partition no segment wants is not
  // queried: a rare term's Query of an empty partition is skipped).
  const absent = (seg: SegmentEntry) =>
    !!seg.g && windows!.some(({ gram }) => !seg.solo[gram] && !mayHoldPartition(seg, bucketOf(gram, seg.g!)));
  const plans: Plan[] = head.segments.flatMap((seg) => {
    if (absent(seg)) return [];
    // What a trigram costs to read, in 4 KB read units of its item(s); a bucket trigram of a format 2
    // segment also spares the doc chunks, which a cover of solo trigrams reads (about one unit more). In
    // the gram partitions a bucket costs its share of the one Query every large segment's bucket shares.
    const cost = (gram: string) => {
      const solo = seg.solo[gram];
      // Bytes only break ties between covers of equal units.
      if (!solo && seg.g) return (seg.bt ?? 0) / seg.g / 4096;
      if (!solo) return Math.ceil(seg.bb / 4096) + seg.bb / 1e8;
      return Math.ceil(solo.bytes / 4096) + solo.parts - 1 + ((seg.v ?? 1) >= 2 ? 1 : 0) + solo.bytes / 1e8;
    };
    // A format 3 bucket trigram also vouches for the FOLLOW code points after it.
    const chosen = cover(windows!, cost, (gram) => ((seg.v ?? 1) >= 3 && !seg.solo[gram] ? FOLLOW : 0));
    const ks = new Map<string, Key[]>();
    for (const { gram } of chosen) {
      if (ks.has(gram)) continue;
      const solo = seg.solo[gram];
      if (solo)
        ks.set(
          gram,
          Array.from({ length: solo.parts }, (_, p) => keys.searchSolo(accountId, seg.id, gram, p)),
        );
      else if (seg.g) {
        const part = bucketOf(gram, seg.g);
        const key = keys.searchGrams(accountId, seg.g, part, seg.id);
        partitions.set(key.pk, { g: seg.g, part });
        ks.set(gram, [key]);
      } else ks.set(gram, [keys.searchBucket(accountId, seg.id, bucketOf(gram, seg.b))]);
    }
    return [{ seg, chosen, keys: ks }];
  });
  // One BatchGet for the packs and every posting item of every segment (a bucket shared by two grams is
  // read once), one Query per gram partition wanted (every large segment's bucket of it), beside the
  // tail's Query.
  const wanted = new Map<string, Key>();
  for (const p of plans)
    for (const list of p.keys.values()) for (const k of list) if (!partitions.has(k.pk)) wanted.set(`${k.pk}|${k.sk}`, k);
  const packKeys = head.packs.map((p) => keys.searchPack(accountId, p.id));
  const keyList = [...wanted.values()];
  const [tail, items, grams] = await Promise.all([
    searchableMessagesBetween(accountId, head.watermark),
    getSegmentItems([...packKeys, ...keyList]),
    Promise.all([...partitions.values()].map(({ g, part }) => getGramPartition(accountId, g, part))),
  ]);
  const scanned = [...items.slice(0, packKeys.length).flatMap((d) => decodePack(d)), ...tail];
  const hits: Hit[] = scanned.filter((m) => inScope.has(m.i) && containsTerm(m.content, term)).map(({ m, c, i, t }) => ({ m, c, i, t }));
  if (!plans.length) return hits;
  const byKey = new Map(keyList.map((k, n) => [`${k.pk}|${k.sk}`, items[packKeys.length + n]]));
  [...partitions.keys()].forEach((pk, n) => {
    for (const [segmentId, data] of grams[n]) byKey.set(`${pk}|${segmentId}`, data);
  });

  const docWants: { plan: Plan; docs: number[] }[] = [];
  for (const plan of plans) {
    const postings = new Map<string, Posting>();
    // Doc data a format 2 bucket carries: every match when the cover holds a bucket trigram; and the
    // code points after each position that a format 3 bucket carries.
    const inline = new Map<number, Doc>();
    const follows = new Map<string, Follows>();
    for (const [gram, list] of plan.keys) {
      const one = new Map<string, Posting>();
      for (const k of list) {
        // A gram partition without the segment's item: no trigram of it hashed there.
        const data = byKey.get(`${k.pk}|${k.sk}`) ?? new Uint8Array();
        if (plan.seg.solo[gram]) {
          one.set(gram, decodePosting(data, one.get(gram)));
        } else readBucket(data, new Set([gram]), one, plan.seg.v, inline, follows);
      }
      postings.set(gram, one.get(gram) ?? new Map());
    }
    const lists = plan.chosen.map((w) => postings.get(w.gram)!);
    const after = plan.chosen.map((w) => follows.get(w.gram));
    // Walk the smallest posting's docs; a doc must be in every chosen gram's posting.
    const smallest = lists.reduce((a, b) => (b.size < a.size ? b : a));
    const docs: number[] = [];
    for (const doc of smallest.keys()) {
      if (
        !startsOf(
          plan.chosen,
          lists.map((l) => l.get(doc)),
          after.map((f) => f?.get(doc)),
        ).length
      )
        continue;
      const known = inline.get(doc);
      if (!known) docs.push(doc);
      else if (inScope.has(known.i)) hits.push(known);
    }
    if (docs.length) docWants.push({ plan, docs });
  }
  if (!docWants.length) return hits;
  // Doc chunks: a BatchGet of the chunks holding matches (0.5 RCU each), or, when a segment's matches
  // are spread over most of its chunks, one Query of all of them (billed by their summed size).
  const chunkKeys: Key[] = [];
  const wholeDocs: SegmentEntry[] = [];
  for (const { plan, docs } of docWants) {
    const wanted = new Set(docs.map((d) => Math.floor(d / DOC_CHUNK)));
    if (wanted.size > Math.ceil((plan.seg.n * DOC_BYTES) / 4096)) {
      wholeDocs.push(plan.seg);
      continue;
    }
    for (const chunk of wanted) chunkKeys.push(keys.searchDocs(accountId, plan.seg.id, chunk));
  }
  const [batch, whole] = await Promise.all([
    getSegmentItems(chunkKeys),
    Promise.all(wholeDocs.map((seg) => getSegmentDocs(accountId, seg.id))),
  ]);
  const chunks = new Map<string, Doc[]>();
  chunkKeys.forEach((k, n) => {
    chunks.set(`${k.pk}|${k.sk}`, decodeDocs(batch[n]));
  });
  wholeDocs.forEach((seg, n) => {
    for (const [sk, data] of whole[n]) chunks.set(`${keys.searchSegment(accountId, seg.id)}|${sk}`, decodeDocs(data));
  });
  for (const { plan, docs } of docWants) {
    for (const d of docs) {
      const chunk = Math.floor(d / DOC_CHUNK);
      const k = keys.searchDocs(accountId, plan.seg.id, chunk);
      const doc = chunks.get(`${k.pk}|${k.sk}`)?.[d - chunk * DOC_CHUNK];
      if (doc && inScope.has(doc.i)) hits.push(doc);
    }
  }
  return hits;
}

export type { SearchHead };
