import type { AttributeValue } from '@aws-sdk/client-dynamodb';

// DynamoDB's billing rules, applied to recorded calls (DynamoDB Local's ConsumedCapacity is wrong for
// transactions: it doubles index copies and neither rounds nor doubles each item). Writes: every item
// rounds up to 1 KB on its own, the larger of its old and new size; a transactional write costs twice
// that on the table; each index copy is a plain write of its projected entry, and a copy whose key moves
// is a delete of the old entry plus a put of the new one. Reads: 4 KB units, half for eventually
// consistent reads, twice for transactional ones; a Query rounds the sum of what it read once.

export type Item = Record<string, AttributeValue>;

export interface IndexShape {
  pk: string;
  sk: string;
  /** undefined: ALL; otherwise the attributes an INCLUDE projection copies (besides keys). */
  include?: string[];
}

/** Size of a value as DynamoDB counts it (numbers: about one byte per two significant digits, plus one). */
export function valueSize(v: AttributeValue): number {
  if (v.S !== undefined) return Buffer.byteLength(v.S);
  if (v.N !== undefined) {
    const digits = v.N.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
    return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
  }
  if (v.B !== undefined) return (v.B as Uint8Array).length;
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.L) return 3 + v.L.reduce((t, x) => t + 1 + valueSize(x), 0);
  if (v.M) return 3 + Object.entries(v.M).reduce((t, [k, x]) => t + 1 + Buffer.byteLength(k) + valueSize(x), 0);
  if (v.SS) return v.SS.reduce((t, s) => t + Buffer.byteLength(s), 0);
  if (v.NS) return v.NS.reduce((t, s) => t + valueSize({ N: s }), 0);
  return 0;
}

export const itemSize = (item: Item | undefined) =>
  item ? Object.entries(item).reduce((t, [k, v]) => t + Buffer.byteLength(k) + valueSize(v), 0) : 0;

/** Attribute order differs between reads; compare entries by content. */
const canonical = (item: Item) =>
  JSON.stringify(
    Object.keys(item)
      .sort()
      .map((k) => [k, item[k]]),
  );

const kb = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

function entryOf(item: Item | undefined, ix: IndexShape, tableKeys: string[]): Item | undefined {
  if (!item?.[ix.pk] || !item[ix.sk]) return undefined;
  if (!ix.include) return item;
  const keep = new Set([ix.pk, ix.sk, ...tableKeys, ...ix.include]);
  return Object.fromEntries(Object.entries(item).filter(([k]) => keep.has(k)));
}

/** Write units of one item's change (old → new; either may be absent). */
export function writeUnits(
  oldItem: Item | undefined,
  newItem: Item | undefined,
  opts: { transactional: boolean; indexes: IndexShape[]; tableKeys: string[] },
) {
  let table = kb(Math.max(itemSize(oldItem), itemSize(newItem)));
  if (opts.transactional) table *= 2;
  let index = 0;
  /** The index partitions written and their units (a move writes the old partition and the new one). */
  const partitions: { partition: string; units: number }[] = [];
  const part = (ix: IndexShape, entry: Item, units: number) => {
    index += units;
    partitions.push({ partition: `${ix.pk}:${entry[ix.pk]?.S ?? ''}`, units });
  };
  for (const ix of opts.indexes) {
    const before = entryOf(oldItem, ix, opts.tableKeys);
    const after = entryOf(newItem, ix, opts.tableKeys);
    if (!before && !after) continue;
    if (before && after) {
      const moved = JSON.stringify([before[ix.pk], before[ix.sk]]) !== JSON.stringify([after[ix.pk], after[ix.sk]]);
      if (moved) {
        part(ix, before, kb(itemSize(before)));
        part(ix, after, kb(itemSize(after)));
      } else if (canonical(before) !== canonical(after)) part(ix, after, kb(itemSize(after)));
    } else part(ix, (before ?? after)!, kb(itemSize(before ?? after)));
  }
  return { table, index, total: table + index, partitions };
}
