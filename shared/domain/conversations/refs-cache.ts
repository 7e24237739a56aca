import { slowlyChangingCache, withReadCache } from '#shared/db/repositories/common.ts';

/**
 * How long a container trusts the inboxes, users with their memberships, agent bots and teams that the
 * JSON of conversations and messages shows (names, availability, channel). Such a record changed less
 * than this long ago may still show its old values in what another warm container answers; the
 * container that made the change (every container under `npm start`) drops its cache at once.
 * Contacts, conversations and messages are always read fresh.
 */
export const REFS_CACHE_TTL_MS = 10_000;

const refsCache = slowlyChangingCache(REFS_CACHE_TTL_MS);

/** Runs `fn` with its seldom-changing reads (keys.slowlyChanging) served from the refs cache. */
export const withRefsCache = <T>(fn: () => Promise<T>): Promise<T> => withReadCache(refsCache, fn);

/** For tests: the cache itself (its clock can be stopped, its entries dropped). */
export const refsCacheForTests = refsCache;
