import { BatchGetCommand, BatchWriteCommand, GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, onWrite, tableName } from '../client.ts';
import { INDEXES, KEY_ATTRIBUTES, TYPE_ATTRIBUTE } from '../table.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { slowlyChanging, type Key } from '../keys.ts';
import { AUDIT_ATTRIBUTES } from '#shared/model/audit.ts';

/** Strips the table's key and bookkeeping attributes, leaving the record. */
export function record<T>(item: Record<string, unknown> | undefined): T | undefined {
  if (!item) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) {
    if (!KEY_ATTRIBUTES.includes(k) && k !== TYPE_ATTRIBUTE && k !== 'ttl' && !AUDIT_ATTRIBUTES.includes(k)) out[k] = v;
  }
  return out as T;
}

/**
 * A read cache for seldom-changing items (keys.slowlyChanging), active only inside `withReadCache`:
 * the event pipeline reads the same account, inbox, webhooks and rules for every event. Entries live
 * `ttlMs`; `forget()` drops everything (the local runtime calls it when the stream shows such an item
 * change, so a webhook edited a moment ago is seen at once there).
 */
export class ReadCache {
  private entries = new Map<string, { at: number; value: Promise<unknown> }>();
  /** The clock entries age by (tests stop it to tell the TTL's effect apart from the machine's speed). */
  now: () => number = () => Date.now();
  constructor(
    readonly ttlMs: number,
    private readonly maxEntries = 5000,
  ) {}

  get<T>(id: string, load: () => Promise<T>): Promise<T> {
    const now = this.now();
    const hit = this.entries.get(id);
    if (hit && now - hit.at < this.ttlMs) return hit.value as Promise<T>;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const value = load();
    this.entries.set(id, { at: now, value });
    value.catch(() => this.entries.delete(id));
    return value;
  }

  has(id: string) {
    const hit = this.entries.get(id);
    return !!hit && this.now() - hit.at < this.ttlMs;
  }

  forget() {
    this.entries.clear();
  }
}

/**
 * A ReadCache of seldom-changing items that this container's own writes of such items (every write, where
 * one process runs all functions, as the local runtime does) drop at once.
 */
export function slowlyChangingCache(ttlMs: number): ReadCache {
  const cache = new ReadCache(ttlMs);
  onWrite((written) => {
    if (written.some((k) => slowlyChanging(k.pk, k.sk))) cache.forget();
  });
  return cache;
}

const cacheScope = new AsyncLocalStorage<ReadCache>();

/** Runs `fn` with `cache` serving the seldom-changing reads it makes. */
export const withReadCache = <T>(cache: ReadCache, fn: () => Promise<T>): Promise<T> => cacheScope.run(cache, fn);

const cacheOf = (partition: string, sk?: string) => {
  const cache = cacheScope.getStore();
  return cache && slowlyChanging(partition, sk) ? cache : undefined;
};

export async function getItem<T>(key: Key, consistent = false): Promise<T | undefined> {
  const cache = cacheOf(key.pk, key.sk);
  return cache ? cache.get(`${key.pk}|${key.sk}`, () => getItemNow<T>(key, consistent)) : getItemNow<T>(key, consistent);
}

/** One item as the table holds it now: never from a read cache (for the rare answer a cache must not keep). */
export async function getItemNow<T>(key: Key, consistent = true): Promise<T | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: consistent }));
  return record<T>(out.Item);
}

/** BatchGet in chunks of 100, retrying unprocessed keys; results keep the order of `keys`. */
export async function getMany<T>(keys: Key[]): Promise<(T | undefined)[]> {
  const cache = cacheScope.getStore();
  if (cache) {
    const hot = keys.filter((k) => slowlyChanging(k.pk, k.sk));
    if (hot.length) {
      const cold = keys.filter((k) => !slowlyChanging(k.pk, k.sk));
      // One BatchGet for what is not cached; each cached key then resolves from its share of it.
      const missing = hot.filter((k) => !cache.has(`${k.pk}|${k.sk}`));
      const fetched = fetchMany<T>([...cold, ...missing]);
      const at = new Map([...cold, ...missing].map((k, i) => [`${k.pk}|${k.sk}`, i]));
      const out = await Promise.all(
        keys.map((k) => {
          const id = `${k.pk}|${k.sk}`;
          const fromBatch = () => fetched.then((rows) => rows[at.get(id)!]);
          return slowlyChanging(k.pk, k.sk) ? cache.get(id, fromBatch) : fromBatch();
        }),
      );
      return out;
    }
  }
  return fetchMany<T>(keys);
}

async function fetchMany<T>(keys: Key[]): Promise<(T | undefined)[]> {
  if (!keys.length) return [];
  const found = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < keys.length; i += 100) {
    let request: Key[] = keys.slice(i, i + 100);
    for (let attempt = 0; request.length && attempt < 8; attempt++) {
      const out = await db().send(new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: request } } }));
      for (const item of out.Responses?.[tableName()] ?? []) found.set(`${item.pk}|${item.sk}`, item);
      request = (out.UnprocessedKeys?.[tableName()]?.Keys as Key[] | undefined) ?? [];
      if (request.length) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
    }
    // A key DynamoDB kept leaving unprocessed is not an absent item: say so rather than answer it as one.
    if (request.length) throw new Error(`BatchGetItem left ${request.length} keys unprocessed after retries`);
  }
  return keys.map((k) => record<T>(found.get(`${k.pk}|${k.sk}`)));
}

/** All items of one partition (or index partition) whose sort key starts with a prefix. */
export async function queryPrefix(
  partition: { pk?: string; gsi1pk?: string; gsi2pk?: string },
  skPrefix: string,
  opts: { limit?: number; forward?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const [pkName, pkValue, skName, index] = partition.gsi1pk
    ? [INDEXES.gsi1.pk, partition.gsi1pk, INDEXES.gsi1.sk, INDEXES.gsi1.name]
    : partition.gsi2pk
      ? [INDEXES.gsi2.pk, partition.gsi2pk, INDEXES.gsi2.sk, INDEXES.gsi2.name]
      : ['pk', partition.pk!, 'sk', undefined];
  // A conversation's partition holds both fresh items and its participants: the prefix decides.
  const cache = cacheOf(pkValue, index === undefined && pkValue.startsWith('CONV#') ? skPrefix : undefined);
  if (cache) {
    const id = `Q|${index ?? ''}|${pkValue}|${skPrefix}|${opts.limit ?? ''}|${opts.forward ?? true}`;
    return cache.get(id, () => queryAll(pkName, pkValue, skName, index, skPrefix, opts));
  }
  return queryAll(pkName, pkValue, skName, index, skPrefix, opts);
}

function queryAll(
  pkName: string,
  pkValue: string,
  skName: string,
  index: string | undefined,
  skPrefix: string,
  opts: { limit?: number; forward?: boolean },
): Promise<Record<string, unknown>[]> {
  return queryItems(
    {
      IndexName: index,
      KeyConditionExpression: '#p = :p AND begins_with(#s, :s)',
      ExpressionAttributeNames: { '#p': pkName, '#s': skName },
      ExpressionAttributeValues: { ':p': pkValue, ':s': skPrefix },
      ScanIndexForward: opts.forward ?? true,
    },
    opts.limit,
  );
}

/** Every item a Query answers, page after page, or only the first `limit` (each page asks for what is still missing). */
export async function queryItems(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>,
  limit?: number,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: QueryCommandInput['ExclusiveStartKey'];
  do {
    const out = await db().send(
      new QueryCommand({
        ...input,
        TableName: tableName(),
        ExclusiveStartKey: start,
        Limit: limit === undefined ? undefined : limit - items.length,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start && (limit === undefined || items.length < limit));
  return items;
}

/**
 * A Query's key condition and filter over a time range: the partition `pk`, sort keys `<seconds>#…` from `since` to
 * `until` (every key of the last second sorts below `sk(until + 1)`), and DynamoDB filters `attribute = value` for each
 * value given in `equal`, `attribute IN (…)` for each list given in `oneOf` (the reads are the range's items).
 */
export function timeRangeQuery(q: {
  pk: [name: string, value: string];
  sk: [name: string, at: (seconds: number) => string];
  since?: number;
  until?: number;
  equal?: Record<string, number | undefined>;
  oneOf?: Record<string, number[] | undefined>;
}): Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'> {
  const names: Record<string, string> = { '#p': q.pk[0], '#s': q.sk[0] };
  const values: Record<string, unknown> = {
    ':p': q.pk[1],
    ':a': q.sk[1](Math.max(0, q.since ?? 0)),
    ':b': q.sk[1](Math.min(q.until ?? 9_999_999_999, 9_999_999_998) + 1),
  };
  const filters: string[] = [];
  let n = 0;
  for (const [attr, v] of Object.entries(q.equal ?? {})) {
    if (v === undefined) continue;
    const t = `f${n++}`;
    names[`#${t}`] = attr;
    values[`:${t}`] = v;
    filters.push(`#${t} = :${t}`);
  }
  for (const [attr, list] of Object.entries(q.oneOf ?? {})) {
    if (!list?.length) continue;
    const t = `f${n++}`;
    names[`#${t}`] = attr;
    const refs = list.map((v, i) => {
      values[`:${t}_${i}`] = v;
      return `:${t}_${i}`;
    });
    filters.push(`#${t} IN (${refs.join(', ')})`);
  }
  return {
    KeyConditionExpression: '#p = :p AND #s BETWEEN :a AND :b',
    ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** One request of a BatchWrite: a plain put or a delete by key. */
export type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Key } };

/**
 * BatchWrite in chunks of 25, in the order given; a chunk's unprocessed requests are retried with backoff
 * before the next chunk, and a chunk still unprocessed after eight tries throws (nothing is dropped silently).
 */
export async function batchWriteAll(requests: WriteRequest[]): Promise<void> {
  for (let i = 0; i < requests.length; i += 25) {
    let request = requests.slice(i, i + 25);
    for (let attempt = 0; request.length; attempt++) {
      if (attempt === 8) throw new Error(`BatchWrite: ${request.length} requests left unprocessed`);
      const out = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: request as never } }));
      request = (out.UnprocessedItems?.[tableName()] ?? []) as WriteRequest[];
      if (request.length) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
    }
  }
}
