import { isIPv6 } from 'node:net';
import { hashToken } from '#shared/crypto/tokens.ts';
import * as keys from '#shared/db/keys.ts';
import type { Key, ThrottleScope } from '#shared/db/keys.ts';
import { releaseThrottleSlot, takeThrottleSlot } from '#shared/db/repositories/limits.ts';
import { ServiceError } from '#shared/errors.ts';

// Throttles of the routes an attacker would hammer (sign-in, password reset, transcript mail): fixed windows
// whose count lives in one item per scope value and window. A request first takes a slot in every window
// that applies — one conditional UpdateItem each, `ADD 1` only while the count is below the limit — and is
// evaluated only once it holds them all, so the verdict of each request comes from its own increment: N
// parallel requests can never all pass, at most `max` of them get through a window. A refused request
// counts in no window (slots it took in the others are given back). A container also remembers the windows
// it found full, so a client that keeps hammering is refused without a write until the window ends.

export interface Throttle {
  scope: ThrottleScope;
  max: number;
  windowSeconds: number;
}

export const THROTTLES = {
  /** Chatwoot's Rack::Attack `login/ip` (failed sign-ins: a success gives its slot back). */
  signInAddress: { scope: 'IP', max: 5, windowSeconds: 5 * 60 },
  /** Chatwoot's `login/email` (failed sign-ins). */
  signInEmail: { scope: 'EMAIL', max: 10, windowSeconds: 15 * 60 },
  /** Chatwoot's `reset_password/ip`. */
  resetAddress: { scope: 'RESET_IP', max: 5, windowSeconds: 30 * 60 },
  /** Chatwoot's `reset_password/email`. */
  resetEmail: { scope: 'RESET_EMAIL', max: 5, windowSeconds: 3600 },
  /** Transcript mails of one conversation. */
  transcriptConversation: { scope: 'TRANSCRIPT_CONV', max: 3, windowSeconds: 3600 },
  /** Transcript mails one visitor (widget contact inbox) asks for, whatever its conversation. */
  transcriptVisitor: { scope: 'TRANSCRIPT_VISITOR', max: 5, windowSeconds: 3600 },
  /** Transcript mails asked for from one client address, whatever the visitor. */
  transcriptAddress: { scope: 'TRANSCRIPT_IP', max: 10, windowSeconds: 3600 },
  /** Transcript mails to one email address, whoever asks (a visitor may set its contact's email to anyone's). */
  transcriptRecipient: { scope: 'TRANSCRIPT_TO', max: 5, windowSeconds: 3600 },
  /** Transcript mails agents send from one account in a day (Chatwoot's account email limit, ACCOUNT_EMAILS_LIMIT 100). */
  transcriptAccount: { scope: 'TRANSCRIPT_ACCOUNT', max: 100, windowSeconds: 24 * 3600 },
} as const satisfies Record<string, Throttle>;

/** Chatwoot's throttle key of an email: lower case, no whitespace anywhere (`downcase.gsub(/\s+/, '')`). */
export const throttleEmail = (email: string) => email.toLowerCase().replace(/\s+/g, '');

/**
 * The client address a limit counts: an IPv4 address as it is (also when mapped into IPv6), an IPv6 address
 * by its /64 — a subscriber's whole prefix, through which one client can rotate at will.
 */
export function addressScope(address: string): string {
  const a = address.trim().replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(a);
  if (mapped) return mapped[1]!;
  if (!isIPv6(a)) return a;
  const [head = '', tail] = a.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** 429 with `Retry-After` and the error body (code `rate_limited`). */
export const throttled = (retryAfter: number, description: string) =>
  new ServiceError(
    'rate_limited',
    description,
    [{ field: '', message: `Retry in ${retryAfter} seconds`, code: 'rate_limited' }],
    retryAfter,
  );

export interface ThrottleWindow {
  key: Key;
  max: number;
  /** Epoch seconds at which the window ends. */
  end: number;
}

/** Where windows count: the table (one conditional UpdateItem per slot); tests give a stand-in. */
export interface ThrottleSlots {
  /** Takes a slot while fewer than `max` are taken; false when the window is full. */
  take(key: Key, max: number, expiresAt: number): Promise<boolean>;
  release(key: Key): Promise<void>;
}

const tableSlots: ThrottleSlots = { take: (key, max, expiresAt) => takeThrottleSlot(key, max, expiresAt), release: releaseThrottleSlot };

/** Slots held by one request. */
export interface Taken {
  /** Gives every slot back: the attempt turned out not to count (a sign-in that succeeded). */
  release(): Promise<void>;
}

const full = new Map<string, number>();
const MAX_REMEMBERED = 10_000;
const memoKey = (k: Key) => `${k.pk} ${k.sk}`;

/** The window of a throttle that holds `nowSeconds`, for one value (kept hashed: no address or email in a key). */
export function throttleWindow(t: Throttle, value: string, nowSeconds: number): ThrottleWindow {
  const start = nowSeconds - (nowSeconds % t.windowSeconds);
  return { key: keys.throttleWindow(t.scope, hashToken(value), start), max: t.max, end: start + t.windowSeconds };
}

/**
 * Takes a slot in each throttle's current window for its value, or throws 429 (`description`, Retry-After:
 * seconds to the end of the latest full window) without keeping any.
 */
export async function takeSlots(
  what: readonly (readonly [Throttle, string])[],
  description: string,
  nowSeconds = Math.floor(Date.now() / 1000),
  slots: ThrottleSlots = tableSlots,
): Promise<Taken> {
  const windows = what.map(([t, value]) => throttleWindow(t, value, nowSeconds));
  for (const [k, end] of full) if (end <= nowSeconds) full.delete(k);
  const refuse = (over: ThrottleWindow[]) => {
    if (full.size >= MAX_REMEMBERED) full.clear();
    for (const w of over) full.set(memoKey(w.key), w.end);
    return throttled(Math.max(1, Math.max(...over.map((w) => w.end)) - nowSeconds), description);
  };
  const known = windows.filter((w) => full.has(memoKey(w.key)));
  if (known.length) throw refuse(known);
  const taken = await Promise.all(windows.map((w) => slots.take(w.key, w.max, w.end + 60)));
  const over = windows.filter((_, i) => !taken[i]);
  if (over.length) {
    await Promise.all(windows.filter((_, i) => taken[i]).map((w) => slots.release(w.key)));
    throw refuse(over);
  }
  return {
    release: async () => {
      await Promise.all(windows.map((w) => slots.release(w.key)));
    },
  };
}
