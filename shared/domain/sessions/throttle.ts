import { hashToken } from '../../crypto/tokens.ts';
import { keys, type Key } from '../../db/keys.ts';
import { countFailedSignIn, getSignInCounters } from '../../db/repositories/sessions.ts';
import { HttpError } from '../../http/errors.ts';

// Sign-in throttling, with Chatwoot's limits (Rack::Attack: 5 per 5 minutes per address, 10 per 15 minutes
// per email) counted over FAILED attempts only: a successful sign-in writes no counter, and the check
// itself is one BatchGet of the two fixed-window counters. A container also remembers which windows it
// saw full, so a client that keeps hammering is refused without a read.

export const SIGN_IN_LIMITS = {
  address: { max: 5, windowSeconds: 5 * 60 },
  email: { max: 10, windowSeconds: 15 * 60 },
} as const;

interface Scope {
  key: Key;
  max: number;
  windowEnd: number;
}

const full = new Map<string, number>();

function scopesOf(email: string, address: string, nowSeconds: number): Scope[] {
  const scope = (kind: 'EMAIL' | 'IP', value: string, limit: { max: number; windowSeconds: number }): Scope => {
    const start = nowSeconds - (nowSeconds % limit.windowSeconds);
    return { key: keys.signInCounter(kind, hashToken(value), start), max: limit.max, windowEnd: start + limit.windowSeconds };
  };
  return [scope('EMAIL', email.trim().toLowerCase(), SIGN_IN_LIMITS.email), scope('IP', address, SIGN_IN_LIMITS.address)];
}

const memoKey = (k: Key) => `${k.pk} ${k.sk}`;

export const throttled = (retryAfter: number) =>
  new HttpError(
    429,
    'Too many sign-in attempts. Please try again later.',
    [{ field: '', message: `Retry in ${retryAfter} seconds`, code: 'rate_limited' }],
    { 'retry-after': String(retryAfter) },
  );

/** Throws 429 when either window is full; otherwise returns a function that counts a failure. */
export async function checkSignIn(email: string, address: string, nowSeconds = Math.floor(Date.now() / 1000)) {
  const scopes = scopesOf(email, address, nowSeconds);
  for (const [k, end] of full) if (end <= nowSeconds) full.delete(k);
  const remembered = scopes.filter((s) => full.has(memoKey(s.key)));
  const counts = remembered.length ? scopes.map((s) => (full.has(memoKey(s.key)) ? s.max : 0)) : await getSignInCounters(scopes.map((s) => s.key));
  const over = scopes.filter((s, i) => counts[i]! >= s.max);
  if (over.length) {
    for (const s of over) full.set(memoKey(s.key), s.windowEnd);
    throw throttled(Math.max(1, Math.max(...over.map((s) => s.windowEnd)) - nowSeconds));
  }
  return async function failed() {
    await Promise.all(scopes.map((s) => countFailedSignIn(s.key, s.windowEnd + 60)));
  };
}
