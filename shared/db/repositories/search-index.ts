import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import type { Key } from '../keys.ts';
import { batchWriteAll, getMany, queryItems } from './common.ts';
import type { BuiltSegment, SegmentDirectory, SourceMessage } from '#shared/codec/search-segment.ts';

// Items of the `q` index (AP73-AP76, AP370; the formats are shared/codec/search-segment.ts and search-pack.ts): the
// account's head (watermark, segment directories and packs), the segments' bucket, solo and doc items (a large
// segment's buckets in the account's gram partitions), the packs, and the tail after the watermark read from the
// searchable-message index (AP72) by creation time.

export interface SegmentEntry extends SegmentDirectory {
  /** Messages created in [from, to) seconds are in it. */
  from: number;
  to: number;
}

/**
 * A pack (shared/codec/search-pack.ts): `n` messages, `bytes` of data; `from` is the watermark its first run of
 * messages was sealed from (the first pack's is where a segment built from the packs starts).
 */
export interface PackEntry {
  id: string;
  from: number;
  n: number;
  bytes: number;
}

export interface SearchHead {
  /** Every message created before this second is in a segment or a pack; later ones are the tail (AP72). */
  watermark: number;
  segments: SegmentEntry[];
  /** The packs, oldest first: the messages after the last segment and before the watermark. */
  packs: PackEntry[];
  /**
   * Segments merged away, kept for readers holding an older head, removed after a while (`g`: its gram partitions,
   * `ge` its mark of the empty ones).
   */
  garbage: { id: string; at: number; g?: number; ge?: string }[];
  version: number;
}

const EMPTY: SearchHead = { watermark: 0, segments: [], packs: [], garbage: [], version: 0 };

/**
 * AP73: the index head of an account. Readers may read it eventually consistent: an older head names
 * segments that are kept for minutes and an older watermark, and the tail items are never removed, so
 * an older head answers the same. The sealer reads it strongly consistent.
 */
export async function getSearchHead(accountId: number, consistent = false): Promise<SearchHead> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.searchHead(accountId), ConsistentRead: consistent }));
  if (!out.Item) return { ...EMPTY };
  return {
    watermark: Number(out.Item.watermark),
    segments: JSON.parse(String(out.Item.segments)),
    packs: JSON.parse(String(out.Item.packs ?? '[]')),
    garbage: JSON.parse(String(out.Item.garbage ?? '[]')),
    version: Number(out.Item.version),
  };
}

/** Replaces the head if nobody else did since `prev` was read; false when someone did. */
export async function putSearchHead(accountId: number, prev: SearchHead, next: Omit<SearchHead, 'version'>): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.searchHead(accountId),
          type: 'search_head',
          watermark: next.watermark,
          segments: JSON.stringify(next.segments),
          packs: JSON.stringify(next.packs),
          garbage: JSON.stringify(next.garbage),
          version: prev.version + 1,
        },
        ConditionExpression: prev.version ? '#v = :v' : 'attribute_not_exists(pk)',
        ExpressionAttributeNames: prev.version ? { '#v': 'version' } : undefined,
        ExpressionAttributeValues: prev.version ? { ':v': prev.version } : undefined,
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/**
 * AP74: writes a built segment's items (its own partition, and its buckets in the gram partitions when it
 * has them; nobody reads them before the head names it).
 */
export async function writeSegment(accountId: number, seg: BuiltSegment): Promise<void> {
  const { id, g } = seg.dir;
  const items: Record<string, unknown>[] = [
    ...seg.buckets.map((data, b) => ({ ...(g ? keys.searchGrams(accountId, g, b, id) : keys.searchBucket(accountId, id, b)), data })),
    ...[...seg.soloParts].flatMap(([gram, parts]) => parts.map((data, p) => ({ ...keys.searchSolo(accountId, id, gram, p), data }))),
    ...seg.docChunks.map((data, k) => ({ ...keys.searchDocs(accountId, id, k), data })),
  ];
  await batchWriteAll(items.filter((i) => (i.data as Uint8Array).length > 0).map((Item) => ({ PutRequest: { Item } })));
}

/** AP74: writes packs, one BatchWrite (each its own partition; nobody reads them before the head names them). */
export async function writePacks(accountId: number, packs: { id: string; data: Uint8Array }[]): Promise<void> {
  await batchWriteAll(packs.map(({ id, data }) => ({ PutRequest: { Item: { ...keys.searchPack(accountId, id), data } } })));
}

/** AP75: items of segments by key (BatchGet), their bytes in the order asked (empty when absent). */
export async function getSegmentItems(keyList: Key[]): Promise<Uint8Array[]> {
  const rows = await getMany<{ data?: Uint8Array }>(keyList);
  return rows.map((r) => (r?.data ? new Uint8Array(r.data) : new Uint8Array()));
}

/**
 * AP370: one gram partition's items (every large segment's bucket of the trigrams hashing to `part`), by
 * segment id: one Query, billed by their summed size.
 */
export async function getGramPartition(accountId: number, parts: number, part: number): Promise<Map<string, Uint8Array>> {
  const items = await queryItems({
    KeyConditionExpression: 'pk = :p',
    ExpressionAttributeValues: { ':p': keys.searchGramPartition(accountId, parts, part) },
  });
  return new Map(items.map((item) => [String(item.sk), new Uint8Array(item.data as Uint8Array)]));
}

/** AP76: every item of a segment's own partition (a merge reads them all), by sort key. */
export async function getWholeSegment(accountId: number, segmentId: string): Promise<Map<string, Uint8Array>> {
  const items = await queryItems({
    KeyConditionExpression: 'pk = :p',
    ExpressionAttributeValues: { ':p': keys.searchSegment(accountId, segmentId) },
  });
  return new Map(items.map((item) => [String(item.sk), new Uint8Array(item.data as Uint8Array)]));
}

/** AP76: every doc chunk of a segment (`sk begins_with D#`), by sort key. */
export async function getSegmentDocs(accountId: number, segmentId: string): Promise<Map<string, Uint8Array>> {
  const items = await queryItems({
    KeyConditionExpression: 'pk = :p AND begins_with(sk, :d)',
    ExpressionAttributeValues: { ':p': keys.searchSegment(accountId, segmentId), ':d': keys.searchDocsPrefix },
  });
  return new Map(items.map((item) => [String(item.sk), new Uint8Array(item.data as Uint8Array)]));
}

/**
 * Removes a segment's items: its own partition, and its bucket in each gram partition of `parts` (`g` of them) where
 * it may have one.
 */
export async function deleteSegment(accountId: number, segmentId: string, gram?: { g: number; parts: number[] }): Promise<void> {
  const items = await getWholeSegment(accountId, segmentId);
  const pk = keys.searchSegment(accountId, segmentId);
  await batchWriteAll([
    ...[...items.keys()].map((sk) => ({ DeleteRequest: { Key: { pk, sk } } })),
    ...(gram?.parts ?? []).map((part) => ({ DeleteRequest: { Key: keys.searchGrams(accountId, gram!.g, part, segmentId) } })),
  ]);
}

export type TailMessage = SourceMessage;

/**
 * AP72: the `q` tail items of an account created in [from, to) seconds (to undefined: up to now):
 * message id, conversation, inbox, time and content.
 */
export async function searchableMessagesBetween(accountId: number, from: number, to?: number): Promise<TailMessage[]> {
  const items = await queryItems({
    KeyConditionExpression: to === undefined ? 'pk = :p AND sk >= :lo' : 'pk = :p AND sk BETWEEN :lo AND :hi',
    ExpressionAttributeValues: {
      ':p': keys.searchTailPartition(accountId),
      ':lo': keys.searchTailFrom(from),
      ...(to === undefined ? {} : { ':hi': keys.searchTailFrom(to) }),
    },
  });
  return items.map((item) => {
    const [t, m] = String(item.sk).split('#').map(Number);
    return { m, c: Number(item.c), i: Number(item.i), t, content: typeof item.x === 'string' ? item.x : '' };
  });
}
