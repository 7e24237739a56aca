import { describe, expect, it } from 'vitest';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { ServiceError } from '#shared/errors.ts';
import { mergeableByKey, mapsToCreate, retryStale, StaleWrite, updateParts } from '#shared/db/repositories/versioned.ts';

// The update expressions that let concurrent writers change one item without reading it first.

describe('updateParts', () => {
  it('sets fields, merges map keys through placeholders, adds one to the version and requires the item and its maps', () => {
    const parts = updateParts({
      set: { name: 'Ann', display_name: null, skipped: undefined },
      merge: { custom_attributes: { 'odd key.with#chars': 1, plain: { nested: true } } },
    });
    expect(parts.UpdateExpression).toBe('SET #a0 = :a0, #a1 = :a1, #m0.#m0k0 = :m0k0, #m0.#m0k1 = :m0k1 ADD #version :one');
    expect(parts.ConditionExpression).toBe('attribute_exists(pk) AND attribute_type(#m0, :map)');
    expect(parts.ExpressionAttributeNames).toEqual({
      '#version': 'version',
      '#a0': 'name',
      '#a1': 'display_name',
      '#m0': 'custom_attributes',
      '#m0k0': 'odd key.with#chars',
      '#m0k1': 'plain',
    });
    expect(parts.ExpressionAttributeValues).toEqual({
      ':one': 1,
      ':a0': 'Ann',
      ':a1': null,
      ':map': 'M',
      ':m0k0': 1,
      ':m0k1': { nested: true },
    });
  });

  it('adds the caller’s condition and leaves empty merges out', () => {
    const parts = updateParts({ set: { a: 1 }, merge: { m: {} }, condition: { expression: 'version = :v', values: { ':v': 3 } } });
    expect(parts.UpdateExpression).toBe('SET #a0 = :a0 ADD #version :one');
    expect(parts.ConditionExpression).toBe('attribute_exists(pk) AND (version = :v)');
    expect(parts.ExpressionAttributeValues[':v']).toBe(3);
  });
});

describe('mergeableByKey and mapsToCreate', () => {
  it('merges key by key unless a key is empty or there are too many for one expression', () => {
    expect(mergeableByKey({ a: 1 })).toBe(true);
    expect(mergeableByKey({ '': 1 })).toBe(false);
    expect(mergeableByKey(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])))).toBe(false);
  });

  it('names the merged attributes that are not maps yet', () => {
    expect(mapsToCreate({ a: {}, b: null }, { merge: { a: { x: 1 }, b: { y: 1 }, c: { z: 1 }, d: {} } })).toEqual(['b', 'c']);
  });
});

describe('retryStale', () => {
  it('retries lost races (stale versions and transaction conflicts) until the change wins, re-reading consistently', async () => {
    const seen: boolean[] = [];
    const conflict = new TransactionCanceledException({
      message: 'x',
      $metadata: {},
      CancellationReasons: [{ Code: 'TransactionConflict' }],
    });
    const out = await retryStale(async (consistent) => {
      seen.push(consistent);
      if (seen.length === 1) throw new StaleWrite();
      if (seen.length === 2) throw conflict;
      return 'won';
    });
    expect(out).toBe('won');
    expect(seen).toEqual([false, true, true]);
  });

  it('passes other errors through at once', async () => {
    let calls = 0;
    await expect(
      retryStale(async () => {
        calls++;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(calls).toBe(1);
  });

  it('answers 429 with Retry-After, never 409, when the budget runs out', async () => {
    const err = await retryStale(async () => {
      throw new StaleWrite();
    }, 30).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).kind).toBe('rate_limited');
    expect((err as ServiceError).retryAfter).toBe(1);
  });
});
