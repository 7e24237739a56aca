import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Key } from '#shared/db/keys.ts';
import { ServiceError } from '#shared/errors.ts';
import { takeSlots, throttled, throttleEmail, throttleWindow, THROTTLES, type ThrottleSlots } from '#shared/domain/throttles.ts';

// The throttles' fixed windows (shared/domain/throttles.ts) over an in-memory stand-in for the table's
// conditional counters: which window a request counts in, that parallel requests never all pass, that a
// refused request counts nowhere, and the container's memory of full windows.

// Instants long past: windows this file fills are forgotten by the first real request of the process
// (a full window is remembered only until its end), and never share a key with one.
const NOW = 1_000_000_000;

function memorySlots() {
  const counts = new Map<string, number>();
  const calls: string[] = [];
  const id = (k: Key) => `${k.pk} ${k.sk}`;
  const slots: ThrottleSlots & { counts: typeof counts; calls: typeof calls; count(k: Key): number } = {
    counts,
    calls,
    count: (k) => counts.get(id(k)) ?? 0,
    async take(key, max, expiresAt) {
      calls.push(`take ${key.sk} ${max} ${expiresAt}`);
      // Let parallel requests interleave as they do against the table.
      await Promise.resolve();
      const n = counts.get(id(key)) ?? 0;
      if (n >= max) return false;
      counts.set(id(key), n + 1);
      return true;
    },
    async release(key) {
      calls.push(`release ${key.sk}`);
      counts.set(id(key), Math.max(0, (counts.get(id(key)) ?? 0) - 1));
    },
  };
  return slots;
}

async function refusal(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('windows', () => {
  it('a fixed window aligned to its length, keyed by the hash of the value', () => {
    const w = throttleWindow(THROTTLES.signInAddress, '198.51.100.7', 1_000_000_123);
    expect(w).toEqual({
      key: { pk: `THROTTLE#IP#${createHash('sha256').update('198.51.100.7').digest('hex')}`, sk: 'W#999999900' },
      max: 5,
      end: 1_000_000_200,
    });
    expect(throttleWindow(THROTTLES.signInAddress, '198.51.100.7', 1_000_000_199).key).toEqual(w.key);
    expect(throttleWindow(THROTTLES.signInAddress, '198.51.100.7', 1_000_000_200).key.sk).toBe('W#1000000200');
    expect(JSON.stringify(throttleWindow(THROTTLES.signInEmail, 'ana@example.com', NOW))).not.toContain('ana@');
  });

  it('Chatwoot’s limits: sign-in 5 per address per 5 minutes and 10 per email per 15; resets 5 per 30 minutes and 5 per hour', () => {
    expect(THROTTLES.signInAddress).toEqual({ scope: 'IP', max: 5, windowSeconds: 300 });
    expect(THROTTLES.signInEmail).toEqual({ scope: 'EMAIL', max: 10, windowSeconds: 900 });
    expect(THROTTLES.resetAddress).toEqual({ scope: 'RESET_IP', max: 5, windowSeconds: 1800 });
    expect(THROTTLES.resetEmail).toEqual({ scope: 'RESET_EMAIL', max: 5, windowSeconds: 3600 });
  });

  it('an email counts lower-cased without any whitespace (Chatwoot’s key)', () => {
    expect(throttleEmail(' Ana@Example.COM ')).toBe('ana@example.com');
    expect(throttleEmail('a na@exa\tmple.com\n')).toBe('ana@example.com');
  });

  it('a refusal is 429’s error with the seconds to wait', () => {
    const err = throttled(42, 'Too many sign-in attempts. Please try again later.');
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.kind).toBe('rate_limited');
    expect(err.retryAfter).toBe(42);
    expect(err.body).toEqual({
      description: 'Too many sign-in attempts. Please try again later.',
      errors: [{ field: '', message: 'Retry in 42 seconds', code: 'rate_limited' }],
    });
  });
});

describe('takeSlots', () => {
  const address = (n: number) => `203.0.113.${n}`;

  it('takes a slot in each window, each kept a minute past its window', async () => {
    const slots = memorySlots();
    const what = [
      [THROTTLES.signInAddress, address(1)],
      [THROTTLES.signInEmail, 'one@example.com'],
    ] as const;
    await takeSlots(what, 'no', NOW, slots);
    expect(slots.calls).toEqual([
      `take W#${NOW - (NOW % 300)} 5 ${NOW - (NOW % 300) + 360}`,
      `take W#${NOW - (NOW % 900)} 10 ${NOW - (NOW % 900) + 960}`,
    ]);
    expect(slots.count(throttleWindow(THROTTLES.signInAddress, address(1), NOW).key)).toBe(1);
  });

  it('parallel requests never all pass: exactly max of them get through a window', async () => {
    const slots = memorySlots();
    const what = [[THROTTLES.signInAddress, address(2)]] as const;
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => takeSlots(what, 'Too many', NOW, slots)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as ServiceError);
    expect(refused).toHaveLength(7);
    const end = throttleWindow(THROTTLES.signInAddress, address(2), NOW).end;
    for (const err of refused) expect([err.kind, err.retryAfter, err.description]).toEqual(['rate_limited', end - NOW, 'Too many']);
  });

  it('a refused request counts in no window: slots it took elsewhere go back', async () => {
    const slots = memorySlots();
    const email = 'two@example.com';
    for (let i = 0; i < 10; i++) await takeSlots([[THROTTLES.signInEmail, email]], 'no', NOW, slots);
    const addressKey = throttleWindow(THROTTLES.signInAddress, address(3), NOW).key;
    const err = await refusal(
      takeSlots(
        [
          [THROTTLES.signInAddress, address(3)],
          [THROTTLES.signInEmail, email],
        ],
        'no',
        NOW,
        slots,
      ),
    );
    expect(err.retryAfter).toBe(throttleWindow(THROTTLES.signInEmail, email, NOW).end - NOW);
    expect(slots.count(addressKey)).toBe(0);
  });

  it('remembers a full window: refuses again without a write until it ends, then asks the table again', async () => {
    const slots = memorySlots();
    const what = [[THROTTLES.resetAddress, address(4)]] as const;
    for (let i = 0; i < 5; i++) await takeSlots(what, 'no', NOW, slots);
    await refusal(takeSlots(what, 'no', NOW, slots));
    const writes = slots.calls.length;
    const later = NOW + 60;
    const again = await refusal(takeSlots(what, 'no', later, slots));
    expect(slots.calls.length).toBe(writes);
    expect(again.retryAfter).toBe(throttleWindow(THROTTLES.resetAddress, address(4), NOW).end - later);
    // The next window: a new count.
    const next = throttleWindow(THROTTLES.resetAddress, address(4), NOW).end;
    await takeSlots(what, 'no', next, slots);
    expect(slots.calls.length).toBe(writes + 1);
  });

  it('waits for the latest of the full windows', async () => {
    const slots = memorySlots();
    const email = 'three@example.com';
    const what = [
      [THROTTLES.signInAddress, address(5)],
      [THROTTLES.signInEmail, email],
    ] as const;
    for (let i = 0; i < 5; i++) await takeSlots(what, 'no', NOW, slots);
    for (let i = 0; i < 5; i++) await takeSlots([[THROTTLES.signInEmail, email]], 'no', NOW, slots);
    const err = await refusal(takeSlots(what, 'no', NOW, slots));
    expect(err.retryAfter).toBe(
      Math.max(throttleWindow(THROTTLES.signInAddress, address(5), NOW).end, throttleWindow(THROTTLES.signInEmail, email, NOW).end) - NOW,
    );
  });

  it('release gives back every slot the request holds (a sign-in that succeeded does not count)', async () => {
    const slots = memorySlots();
    const what = [
      [THROTTLES.signInAddress, address(6)],
      [THROTTLES.signInEmail, 'four@example.com'],
    ] as const;
    for (let i = 0; i < 20; i++) await (await takeSlots(what, 'no', NOW, slots)).release();
    expect(slots.count(throttleWindow(THROTTLES.signInAddress, address(6), NOW).key)).toBe(0);
    expect(slots.count(throttleWindow(THROTTLES.signInEmail, 'four@example.com', NOW).key)).toBe(0);
  });
});
