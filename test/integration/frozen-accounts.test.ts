import { describe, expect, it } from 'vitest';
import { ReadCache, withReadCache } from '#shared/db/repositories/common.ts';
import { getAccount } from '#shared/db/repositories/identity.ts';
import { frozenAccounts } from '#shared/domain/accounts/suspension.ts';
import { runtime, seedAccount } from '../support/runtime.ts';

// The dispatcher skips events of deleted accounts. Its read cache may hold an account's absence from
// before the account was made (ids are handed out in order): that must not read as "deleted".

describe('frozen accounts (the dispatcher’s check)', () => {
  it('does not take a cached absence for a deletion: an account made since is dispatched', async () => {
    await runtime();
    const first = await seedAccount();
    const cache = new ReadCache(60_000);
    const next = first.accountId + 1;
    // The absence is cached, as a batch that saw an event naming that id would have.
    expect(await withReadCache(cache, () => getAccount(next))).toBeUndefined();
    const made = await seedAccount();
    expect(made.accountId).toBe(next);
    await withReadCache(cache, async () => {
      expect(await getAccount(next)).toBeUndefined();
      expect(await frozenAccounts()(next)).toBe(false);
      expect(await frozenAccounts()(next + 10_000)).toBe('deleted');
    });
  });
});
