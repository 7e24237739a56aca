import { describe, expect, it } from 'vitest';
import { itemSize, valueSize, writeUnits, type IndexShape, type Item } from '../../../bench/billing.ts';

// The bench's billing of writes by AWS's rules: per-item 1 KB rounding, doubling in transactions, one
// write per index copy and two when the copy's key moves, small INCLUDE copies billed by their own size.

const ALL: IndexShape = { pk: 'gsi1pk', sk: 'gsi1sk' };
const SMALL: IndexShape = { pk: 'gsi3pk', sk: 'gsi3sk', include: ['status'] };
const opts = (transactional: boolean, indexes: IndexShape[] = []) => ({ transactional, indexes, tableKeys: ['pk', 'sk'] });

const item = (extra: Record<string, string>, bytes = 0): Item => ({
  pk: { S: 'CONV#1#1' },
  sk: { S: 'CONV' },
  ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, { S: v }])),
  ...(bytes ? { body: { S: 'x'.repeat(bytes) } } : {}),
});

describe('bench billing', () => {
  it('sizes values as DynamoDB does: names plus values, numbers by significant digits', () => {
    expect(valueSize({ S: 'héllo' })).toBe(6);
    expect(valueSize({ N: '123456' })).toBe(4);
    expect(valueSize({ N: '1000' })).toBe(2);
    expect(valueSize({ BOOL: true })).toBe(1);
    expect(valueSize({ M: { a: { S: 'xy' } } })).toBe(3 + 1 + 1 + 2);
    expect(itemSize({ ab: { S: 'cd' } })).toBe(4);
  });

  it('rounds each item up to 1 KB by the larger of its old and new size, twice in a transaction', () => {
    expect(writeUnits(undefined, item({}, 100), opts(false)).total).toBe(1);
    expect(writeUnits(item({}, 1500), item({}, 100), opts(false)).total).toBe(2);
    expect(writeUnits(undefined, item({}, 1500), opts(true)).total).toBe(4);
    expect(writeUnits(item({}, 10), undefined, opts(true)).total).toBe(2);
  });

  it('bills an index copy once when it stays, twice when its key moves, and never when the item has no key for it', () => {
    const at = (t: string, bytes: number) => item({ gsi1pk: 'P', gsi1sk: t }, bytes);
    expect(writeUnits(at('1', 100), at('1', 200), opts(false, [ALL]))).toMatchObject({ table: 1, index: 1 });
    expect(writeUnits(at('1', 1500), at('2', 1500), opts(true, [ALL]))).toMatchObject({ table: 4, index: 4 });
    expect(writeUnits(item({}, 10), item({}, 20), opts(false, [ALL]))).toMatchObject({ index: 0 });
  });

  it('bills a small projected copy by its own size, and not at all when nothing it holds changed', () => {
    const row = (t: string, status: string, bytes: number) => item({ gsi3pk: 'P', gsi3sk: t, status }, bytes);
    expect(writeUnits(row('1', 'open', 1500), row('2', 'open', 1600), opts(false, [SMALL]))).toMatchObject({ table: 2, index: 2 });
    expect(writeUnits(row('1', 'open', 100), row('1', 'open', 900), opts(false, [SMALL]))).toMatchObject({ index: 0 });
    expect(writeUnits(row('1', 'open', 100), row('1', 'resolved', 100), opts(false, [SMALL]))).toMatchObject({ index: 1 });
  });
});
