import { HttpError } from '../../http/errors.ts';
import type { Key } from '../keys.ts';
import { del, put, type TxItem } from '../transact.ts';

// Optimistic concurrency for records that several administrators may change: every write of an
// existing item is conditioned on the version that was read, so a lost race (or a concurrent delete)
// fails the transaction instead of silently overwriting.

export class StaleWrite extends Error {
  constructor() {
    super('The item changed since it was read');
  }
}

const sameVersion = (version: number) => ({ expression: 'version = :v', values: { ':v': version } });

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
 * Runs a read-change-write until it wins; `consistent` asks the read after a lost race to be strongly
 * consistent, so the retry sees the winner's write.
 */
export async function retryStale<T>(run: (consistent: boolean) => Promise<T>): Promise<T> {
  for (let attempt = 0; attempt < 4; attempt++) {
    try {
      return await run(attempt > 0);
    } catch (err) {
      if (!(err instanceof StaleWrite)) throw err;
    }
  }
  throw new HttpError(409, 'Someone else is changing this record; try again', [
    { field: '', message: 'Concurrent update', code: 'conflict' },
  ]);
}
