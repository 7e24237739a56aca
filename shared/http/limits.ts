import { config } from '#shared/config.ts';
import { hashToken } from '#shared/crypto/tokens.ts';
import { addToRateWindow } from '#shared/db/repositories/limits.ts';
import { log } from '#shared/log.ts';
import { rateLimited } from '#shared/errors.ts';
import { Limiter } from './limiter.ts';

// The service's request limits (docs/api.md#request-limits), checked in the one middy chain: per credential before
// the credential is looked up (an unknown token hammering costs no read), per account once the caller is
// known to belong to it (so nobody can spend another account's budget). Public and widget routes: the
// inbox counts as the account, the contact (its identifier or widget token) as the credential. The file
// route has no credential: it counts per client address.

const limiter = new Limiter({
  shared: { add: addToRateWindow },
  syncShare: () => config().limits.syncShare,
  onSyncError: (error) => log.warn('request limit window not updated; the container bucket still applies', { error }),
});

export type LimitKind = 'account' | 'credential' | 'address';

const NAMES: Record<LimitKind, string> = { account: 'account', credential: 'access token', address: 'client address' };

/** Counts one request of the scope; 429 with Retry-After when its limit is reached. */
export async function enforceLimit(kind: LimitKind, scope: string, name = NAMES[kind]): Promise<void> {
  const verdict = await limiter.take(scope, config().limits[kind]);
  if (!verdict.allowed) throw rateLimited(verdict.retryAfter, name);
}

/** Scope names: no '#' (they become keys), unbounded values hashed. */
export const limitScope = {
  account: (id: number) => `ACCOUNT:${id}`,
  token: (hash: string) => `TOKEN:${hash}`,
  inbox: (identifier: string) => `INBOX:${hashToken(identifier)}`,
  contact: (identifier: string) => `CONTACT:${hashToken(identifier)}`,
  address: (ip: string) => `ADDRESS:${hashToken(ip)}`,
};
