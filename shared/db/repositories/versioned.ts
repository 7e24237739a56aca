import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { ServiceError } from '#shared/errors.ts';
import type { Key } from '../keys.ts';
import { del, put, transact, type TxItem } from '../transact.ts';
import { getItem, getItemNow, record } from './common.ts';

// Optimistic concurrency for records that several administrators may change: every write of an
// existing item is conditioned on the integer version that was read (each write adds one), so a lost
// race (or a concurrent delete) fails the transaction instead of silently overwriting. Never a
// timestamp: two writes within one second carry the same one.

export class StaleWrite extends Error {
  constructor() {
    super('The item changed since it was read');
  }
}

/** The item still has the version that was read; `undefined` for items written before they had one. */
export const sameVersion = (version: number | undefined) =>
  version === undefined
    ? { expression: 'attribute_not_exists(version)' }
    : { expression: 'version = :v', values: { ':v': version } as Record<string, unknown> };

/** A new item (`before` undefined) or the next version of one. */
export const versionedPut = (item: Record<string, unknown>, beforeVersion?: number): TxItem => ({
  item: beforeVersion === undefined ? put(item, { ifNew: true }) : put(item, { condition: sameVersion(beforeVersion) }),
  onConflict: () => new StaleWrite(),
});

export const versionedDel = (key: Key, version: number): TxItem => ({
  item: del(key, sameVersion(version)),
  onConflict: () => new StaleWrite(),
});

/**
 * How long a read-change-write keeps trying to win against other writers of the same item. Chatwoot
 * serialises writers on a row lock and never answers 409, and its clients do not retry one: 50 writers
 * on one object must all get through, well inside API Gateway's 30 s.
 */
export const RETRY_BUDGET_MS = 25_000;
const MAX_BACKOFF_MS = 500;

/** Lost a race: the item's version moved, or DynamoDB cancelled the transaction for a concurrent one. */
export const isLostRace = (err: unknown) =>
  err instanceof StaleWrite ||
  (err instanceof TransactionCanceledException && (err.CancellationReasons ?? []).some((r) => r.Code === 'TransactionConflict'));

/** Full jitter over an exponentially growing window (so many writers spread out instead of colliding again). */
export const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(MAX_BACKOFF_MS, 10 * 2 ** attempt)));

/**
 * Runs a read-change-write until it wins; `consistent` asks the read after a lost race to be strongly
 * consistent, so the retry sees the winner's write. Should the budget ever run out, the answer is 429
 * (retry later), which clients treat as throttling, never 409.
 */
export async function retryStale<T>(run: (consistent: boolean) => Promise<T>, budgetMs = RETRY_BUDGET_MS): Promise<T> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await run(attempt > 0);
    } catch (err) {
      if (!isLostRace(err)) throw err;
      if (Date.now() - started > budgetMs) {
        throw new ServiceError(
          'rate_limited',
          'Too many concurrent changes of this record',
          [{ field: '', message: 'Retry later', code: 'rate_limited' }],
          1,
        );
      }
    }
    await backoff(attempt);
  }
}

// ── changes applied on the attributes themselves ───────────────────────────────────────────────────
// Where Chatwoot merges (custom attributes key by key) or replaces single values (last writer wins),
// nothing needs to be read first: one UpdateItem sets exactly what changed and adds one to the version,
// so concurrent writers never conflict with each other, and read-change-writers of the same item still
// see that it moved.

export interface AttributeChanges {
  /** Top-level attributes replaced (undefined values are left alone). */
  set?: Record<string, unknown>;
  /** Keys set inside map attributes (`custom_attributes.tier = "gold"`), the rest of each map kept. */
  merge?: Record<string, Record<string, unknown>>;
  /** Only when this also holds; a failure throws StaleWrite. */
  condition?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> };
}

export interface UpdateParts {
  UpdateExpression: string;
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
}

/**
 * Whether a map's keys can be merged one by one: an expression has at most 4 KB and an attribute name
 * is never empty. Otherwise the caller writes the whole merged map on a version condition.
 */
export const mergeableByKey = (entries: Record<string, unknown>) => {
  const names = Object.keys(entries);
  return names.length <= 100 && names.every((k) => k.length > 0);
};

/** The UpdateItem expressions of `changes`; the item must exist and every merged map must be a map. */
export function updateParts(changes: AttributeChanges): UpdateParts {
  const names: Record<string, string> = { '#version': 'version', ...changes.condition?.names };
  const values: Record<string, unknown> = { ':one': 1, ...changes.condition?.values };
  const sets: string[] = [];
  const conditions = ['attribute_exists(pk)'];
  let n = 0;
  for (const [attr, value] of Object.entries(changes.set ?? {})) {
    if (value === undefined) continue;
    names[`#a${n}`] = attr;
    values[`:a${n}`] = value;
    sets.push(`#a${n} = :a${n}`);
    n++;
  }
  let m = 0;
  for (const [attr, entries] of Object.entries(changes.merge ?? {})) {
    const keysOf = Object.entries(entries);
    if (!keysOf.length) continue;
    names[`#m${m}`] = attr;
    values[':map'] = 'M';
    conditions.push(`attribute_type(#m${m}, :map)`);
    keysOf.forEach(([key, value], k) => {
      names[`#m${m}k${k}`] = key;
      values[`:m${m}k${k}`] = value;
      sets.push(`#m${m}.#m${m}k${k} = :m${m}k${k}`);
    });
    m++;
  }
  if (changes.condition) conditions.push(`(${changes.condition.expression})`);
  return {
    UpdateExpression: `${sets.length ? `SET ${sets.join(', ')} ` : ''}ADD #version :one`,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

const isMap = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Makes these attributes maps (records written before they existed, or where one was null). */
export async function ensureMaps(key: Key, attrs: string[]): Promise<void> {
  for (const attr of attrs) {
    try {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: 'SET #m = :empty',
          ConditionExpression: 'attribute_exists(pk) AND NOT attribute_type(#m, :map)',
          ExpressionAttributeNames: { '#m': attr },
          ExpressionAttributeValues: { ':empty': {}, ':map': 'M' },
        }),
      );
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }
}

/**
 * Applies `changes` to an existing item in one UpdateItem (with `also`, in one transaction with those writes,
 * whose own conditions must not fail) and returns the record as written, or undefined when the item does not
 * exist. Throws StaleWrite when `changes.condition` does not hold.
 */
export async function applyChanges<T>(key: Key, changes: AttributeChanges, also: TxItem[] = []): Promise<T | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      if (also.length) {
        // Writes that must go with it (a copy of some of its fields): one transaction, then the item as stored.
        await transact([updateItem(key, changes), ...also]);
        return await getItemNow<T>(key, true);
      }
      const out = await db().send(
        new UpdateCommand({ TableName: tableName(), Key: key, ...updateParts(changes), ReturnValues: 'ALL_NEW' }),
      );
      return record<T>(out.Attributes);
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException) && !(also.length && err instanceof StaleWrite)) throw err;
    }
    // Which condition failed: the item is gone, a merged map is missing, or the caller's own.
    const current = await getItem<Record<string, unknown>>(key, true);
    if (!current) return undefined;
    const missing = Object.keys(changes.merge ?? {}).filter((attr) => !isMap(current[attr]));
    if (!missing.length || attempt >= 3) throw new StaleWrite();
    await ensureMaps(key, missing);
  }
}

/** `changes` as an item of a transaction (the merged maps must already be maps: see `ensureMaps`). */
export const updateItem = (key: Key, changes: AttributeChanges): TxItem => ({
  item: { Update: { TableName: '', Key: key, ...updateParts(changes) } },
  onConflict: () => new StaleWrite(),
});

/** The attributes `changes` merges into that are not maps on `current` yet. */
export const mapsToCreate = (current: Record<string, unknown>, changes: AttributeChanges) =>
  Object.keys(changes.merge ?? {}).filter((attr) => Object.keys(changes.merge![attr]).length && !isMap(current[attr]));
