import { describe, expect, it } from 'vitest';
import { Limiter, type SharedWindows } from '#shared/http/limiter.ts';

// The limiter's arithmetic with a hand-driven clock and an in-memory stand-in for the shared window items.

function clock(start = 1_700_000_000_000) {
  const c = { t: start, now: () => c.t, advance: (ms: number) => void (c.t += ms) };
  return c;
}

function memoryWindows() {
  const totals = new Map<string, number>();
  const writes: { scope: string; window: number; n: number }[] = [];
  const store: SharedWindows & { totals: typeof totals; writes: typeof writes } = {
    totals,
    writes,
    async add(scope, window, n) {
      writes.push({ scope, window, n });
      const total = (totals.get(`${scope} ${window}`) ?? 0) + n;
      totals.set(`${scope} ${window}`, total);
      return total;
    },
  };
  return store;
}

describe('per-container token bucket', () => {
  it('allows a burst, then refuses with the seconds until the next token', async () => {
    const c = clock();
    const limiter = new Limiter({ now: c.now });
    const limit = { perMinute: 30, burst: 3 };
    for (let i = 0; i < 3; i++) expect(await limiter.take('a', limit)).toEqual({ allowed: true });
    expect(await limiter.take('a', limit)).toEqual({ allowed: false, retryAfter: 2, reason: 'rate' });
    c.advance(1000);
    // Half a token back: one more second to go.
    expect(await limiter.take('a', limit)).toEqual({ allowed: false, retryAfter: 1, reason: 'rate' });
    c.advance(1000);
    expect(await limiter.take('a', limit)).toEqual({ allowed: true });
    expect((await limiter.take('a', limit)).allowed).toBe(false);
  });

  it('keeps scopes apart', async () => {
    const limiter = new Limiter({ now: clock().now });
    const limit = { perMinute: 1, burst: 1 };
    expect((await limiter.take('a', limit)).allowed).toBe(true);
    expect((await limiter.take('a', limit)).allowed).toBe(false);
    expect((await limiter.take('b', limit)).allowed).toBe(true);
  });

  it('refills no further than the burst however long the scope was idle', async () => {
    const c = clock();
    const limiter = new Limiter({ now: c.now });
    const limit = { perMinute: 60, burst: 2 };
    await limiter.take('a', limit);
    c.advance(3_600_000);
    const verdicts = [];
    for (let i = 0; i < 3; i++) verdicts.push((await limiter.take('a', limit)).allowed);
    expect(verdicts).toEqual([true, true, false]);
  });

  it('a limit of 0 per minute is off', async () => {
    const limiter = new Limiter({ now: clock().now, shared: memoryWindows() });
    for (let i = 0; i < 100; i++) expect((await limiter.take('a', { perMinute: 0, burst: 0 })).allowed).toBe(true);
    expect(limiter.size).toBe(0);
  });

  it('a lowered limit applies to a scope already in memory', async () => {
    const limiter = new Limiter({ now: clock().now });
    expect((await limiter.take('a', { perMinute: 6000, burst: 1000 })).allowed).toBe(true);
    expect((await limiter.take('a', { perMinute: 1, burst: 1 })).allowed).toBe(true);
    expect((await limiter.take('a', { perMinute: 1, burst: 1 })).allowed).toBe(false);
  });

  it('forgets idle scopes past its size, keeping busy ones', async () => {
    const c = clock();
    const limiter = new Limiter({ now: c.now, maxScopes: 3 });
    const limit = { perMinute: 60, burst: 1 };
    await limiter.take('busy', limit);
    c.advance(1);
    await limiter.take('idle1', limit);
    c.advance(5_000);
    await limiter.take('busy', limit);
    expect((await limiter.take('busy', limit)).allowed).toBe(false);
    await limiter.take('idle2', limit);
    await limiter.take('new', limit);
    expect(limiter.size).toBeLessThanOrEqual(3);
    // The busy scope's empty bucket survived the clean-up.
    expect((await limiter.take('busy', limit)).allowed).toBe(false);
  });
});

describe('shared window across containers', () => {
  const limit = { perMinute: 600, burst: 400 }; // quota 1000 per minute, a lump every 50 requests

  it('adds counts in lumps, never per request', async () => {
    const c = clock(Date.UTC(2030, 0, 1, 0, 0, 0));
    const store = memoryWindows();
    const limiter = new Limiter({ now: c.now, shared: store, syncShare: 0.05 });
    for (let i = 0; i < 120; i++) {
      expect((await limiter.take('acct', limit)).allowed).toBe(true);
      c.advance(100);
    }
    expect(store.writes.map((w) => w.n)).toEqual([50, 50]);
    expect(store.totals.get(`acct ${Date.UTC(2030, 0, 1) / 1000}`)).toBe(100);
  });

  it('a container learns the window is full from its own write and refuses until the window ends', async () => {
    const c = clock(Date.UTC(2030, 0, 1, 0, 0, 0));
    const store = memoryWindows();
    const containers = Array.from({ length: 4 }, () => new Limiter({ now: c.now, shared: store, syncShare: 0.05 }));
    // Four containers, each within its own bucket (400 burst), together past the window's 1000.
    let allowed = 0;
    for (let i = 0; i < 1600; i++) if ((await containers[i % 4]!.take('acct', limit)).allowed) allowed++;
    // Overshoot bound: quota + containers × lump.
    expect(allowed).toBeGreaterThanOrEqual(1000);
    expect(allowed).toBeLessThanOrEqual(1000 + 4 * 50);
    c.advance(20_000);
    const verdict = await containers[0]!.take('acct', limit);
    expect(verdict).toEqual({ allowed: false, retryAfter: 40, reason: 'window' });
    // Next window: allowed again.
    c.advance(40_000);
    expect((await containers[0]!.take('acct', limit)).allowed).toBe(true);
  });

  it('a new container that has served nothing is refused after its first lump reports a full window', async () => {
    const c = clock(Date.UTC(2030, 0, 1, 0, 0, 10));
    const store = memoryWindows();
    store.totals.set(`acct ${Date.UTC(2030, 0, 1) / 1000}`, 990);
    const fresh = new Limiter({ now: c.now, shared: store, syncShare: 0.01 }); // a lump of 10
    const verdicts = [];
    for (let i = 0; i < 12; i++) verdicts.push((await fresh.take('acct', limit)).allowed);
    expect(verdicts).toEqual([...Array(10).fill(true), false, false]);
    expect(await fresh.take('acct', limit)).toEqual({ allowed: false, retryAfter: 50, reason: 'window' });
  });

  it('a failing store leaves the bucket in charge and keeps the count for the next write', async () => {
    const c = clock(Date.UTC(2030, 0, 1));
    const errors: unknown[] = [];
    let fail = true;
    const store = memoryWindows();
    const flaky: SharedWindows = { add: (...a) => (fail ? Promise.reject(new Error('down')) : store.add(...a)) };
    const limiter = new Limiter({ now: c.now, shared: flaky, syncShare: 0.05, onSyncError: (e) => errors.push(e) });
    for (let i = 0; i < 50; i++) expect((await limiter.take('acct', limit)).allowed).toBe(true);
    expect(errors).toHaveLength(1);
    fail = false;
    await limiter.take('acct', limit);
    expect(store.writes).toEqual([{ scope: 'acct', window: Date.UTC(2030, 0, 1) / 1000, n: 51 }]);
  });

  it('syncShare 0 never writes', async () => {
    const store = memoryWindows();
    const limiter = new Limiter({ now: clock().now, shared: store, syncShare: () => 0 });
    for (let i = 0; i < 500; i++) await limiter.take('acct', limit);
    expect(store.writes).toHaveLength(0);
  });
});

describe('limits at the edges', () => {
  it('the window quota is the sustained rate over the window plus one burst', () => {
    expect(new Limiter().quota({ perMinute: 600, burst: 400 })).toBe(1000);
    expect(new Limiter({ windowSeconds: 30 }).quota({ perMinute: 61, burst: 5 })).toBe(36);
    expect(new Limiter({ windowSeconds: 3600 }).quota({ perMinute: 1, burst: 0 })).toBe(60);
  });

  it('a burst of 0 still lets one request through at a time', async () => {
    const c = clock();
    const limiter = new Limiter({ now: c.now });
    const limit = { perMinute: 60, burst: 0 };
    expect((await limiter.take('a', limit)).allowed).toBe(true);
    expect(await limiter.take('a', limit)).toEqual({ allowed: false, retryAfter: 1, reason: 'rate' });
    c.advance(1000);
    expect((await limiter.take('a', limit)).allowed).toBe(true);
  });

  it('tells at least one second to wait, rounding up', async () => {
    const limit = { perMinute: 6, burst: 1 }; // a token every 10 s
    const waitAfter = async (ms: number) => {
      const c = clock();
      const limiter = new Limiter({ now: c.now });
      await limiter.take('a', limit);
      c.advance(ms);
      return limiter.take('a', limit);
    };
    expect(await waitAfter(9_990)).toEqual({ allowed: false, retryAfter: 1, reason: 'rate' });
    expect(await waitAfter(1_000)).toEqual({ allowed: false, retryAfter: 9, reason: 'rate' });
    expect(await waitAfter(999)).toEqual({ allowed: false, retryAfter: 10, reason: 'rate' });
  });

  it('forgets even busy scopes when every one in memory is busy (memory stays bounded)', async () => {
    const limiter = new Limiter({ now: clock().now, maxScopes: 2 });
    const limit = { perMinute: 1, burst: 1 };
    await limiter.take('a', limit);
    await limiter.take('b', limit);
    await limiter.take('c', limit);
    expect(limiter.size).toBe(1);
    expect((await limiter.take('a', limit)).allowed).toBe(true);
  });
});

describe('shared window at the edges', () => {
  const limit = { perMinute: 600, burst: 400 }; // quota 1000, a lump every 50 at 5 %

  it('a new window starts a new count: what the last one did not add yet is not carried over', async () => {
    const start = Date.UTC(2030, 0, 1, 0, 0, 0);
    const c = clock(start + 30_000);
    const store = memoryWindows();
    const limiter = new Limiter({ now: c.now, shared: store, syncShare: 0.05 });
    for (let i = 0; i < 30; i++) await limiter.take('acct', limit);
    c.advance(30_000);
    for (let i = 0; i < 49; i++) await limiter.take('acct', limit);
    expect(store.writes).toEqual([]);
    await limiter.take('acct', limit);
    expect(store.writes).toEqual([{ scope: 'acct', window: start / 1000 + 60, n: 50 }]);
  });

  it('one write at a time per scope: requests during a write add to the next lump', async () => {
    const c = clock(Date.UTC(2030, 0, 1));
    const store = memoryWindows();
    let open: () => void = () => undefined;
    const held: SharedWindows = {
      add: (...a) => new Promise((resolve) => (open = () => resolve(store.add(...a)))),
    };
    const limiter = new Limiter({ now: c.now, shared: held, syncShare: 0.05 });
    for (let i = 0; i < 49; i++) await limiter.take('acct', limit);
    const lump = limiter.take('acct', limit);
    // Sixty more while the first write is out: none of them writes.
    for (let i = 0; i < 60; i++) expect(await limiter.take('acct', limit)).toEqual({ allowed: true });
    open();
    expect(await lump).toEqual({ allowed: true });
    expect(store.writes.map((w) => w.n)).toEqual([50]);
    const next = limiter.take('acct', limit);
    open();
    await next;
    expect(store.writes.map((w) => w.n)).toEqual([50, 61]);
  });

  it('refuses once its own count since the last write tips a known total over the quota, without writing', async () => {
    const start = Date.UTC(2030, 0, 1, 0, 0, 0);
    const c = clock(start + 15_000);
    const store = memoryWindows();
    store.totals.set(`acct ${start / 1000}`, 985);
    const limiter = new Limiter({ now: c.now, shared: store, syncShare: 0.01 }); // a lump of 10
    const verdicts = [];
    for (let i = 0; i < 17; i++) verdicts.push((await limiter.take('acct', limit)).allowed);
    // 10 (written: 995 known), then 6 more reach 1001 > 1000; the next is refused.
    expect(verdicts).toEqual([...Array(16).fill(true), false]);
    expect(store.writes.map((w) => w.n)).toEqual([10]);
    expect(await limiter.take('acct', limit)).toEqual({ allowed: false, retryAfter: 45, reason: 'window' });
  });
});
