// Request limits per scope (an account, a credential, a public inbox or contact): a token bucket in the
// container's memory, and — so that the limit holds across containers — a fixed window whose count lives
// in one shared item. A container adds its requests to that item in lumps (every `syncShare` of the
// window's quota, never per request) and learns the sum from the same write; a window found full refuses
// the scope in that container until the window ends. Pure logic: the store, the clock and the limits are
// given.

export interface Limit {
  /** Sustained requests per minute; 0 turns the limit off. */
  perMinute: number;
  /** Requests allowed at once (the bucket's size, at least 1). */
  burst: number;
}

/** The shared window counts: adds `n` to a scope's window and answers the window's total. */
export interface SharedWindows {
  add(scope: string, windowStart: number, n: number, expiresAt: number): Promise<number>;
}

export type Verdict = { allowed: true } | { allowed: false; retryAfter: number; reason: 'rate' | 'window' };

interface State {
  tokens: number;
  /** ms of the last refill. */
  at: number;
  /** Start of the current shared window (seconds) and what this container counted in it, not yet added. */
  window: number;
  pending: number;
  /** The window's total as of this container's last add. */
  known: number;
  /** ms until which the scope's shared window is full. */
  blockedUntil: number;
  syncing?: Promise<void>;
}

export interface LimiterOptions {
  shared?: SharedWindows;
  now?: () => number;
  /** Length of the shared window. */
  windowSeconds?: number;
  /** A container adds its count to the shared window every this share of the window's quota (0: never). */
  syncShare?: number | (() => number);
  /** Scopes kept in memory; past it, the idle ones (their bucket full again) are forgotten. */
  maxScopes?: number;
  onSyncError?: (err: unknown) => void;
}

const capacity = (limit: Limit) => Math.max(1, limit.burst);

export class Limiter {
  private readonly states = new Map<string, State>();
  private readonly now: () => number;
  private readonly windowSeconds: number;
  private readonly syncShare: () => number;
  private readonly maxScopes: number;

  constructor(private readonly opts: LimiterOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.windowSeconds = opts.windowSeconds ?? 60;
    const share = opts.syncShare ?? 0.05;
    this.syncShare = typeof share === 'function' ? share : () => share;
    this.maxScopes = opts.maxScopes ?? 50_000;
  }

  /** The window's quota: the sustained rate over the window, plus one burst. */
  quota(limit: Limit): number {
    return Math.ceil((limit.perMinute * this.windowSeconds) / 60) + limit.burst;
  }

  /**
   * Counts one request of `scope` and says whether it may proceed. Resolves after the shared window was
   * updated when this request completed a lump (one request in `syncShare × quota` waits for one write).
   */
  async take(scope: string, limit: Limit): Promise<Verdict> {
    if (limit.perMinute <= 0) return { allowed: true };
    const now = this.now();
    const state = this.stateOf(scope, limit, now);
    if (state.blockedUntil > now) {
      return { allowed: false, retryAfter: Math.max(1, Math.ceil((state.blockedUntil - now) / 1000)), reason: 'window' };
    }
    const perMs = limit.perMinute / 60_000;
    state.tokens = Math.min(capacity(limit), state.tokens + (now - state.at) * perMs);
    state.at = now;
    if (state.tokens < 1) {
      return { allowed: false, retryAfter: Math.max(1, Math.ceil((1 - state.tokens) / perMs / 1000)), reason: 'rate' };
    }
    state.tokens -= 1;
    if (this.opts.shared && this.syncShare() > 0) await this.count(scope, state, limit, now);
    return { allowed: true };
  }

  private stateOf(scope: string, limit: Limit, now: number): State {
    let state = this.states.get(scope);
    if (!state) {
      if (this.states.size >= this.maxScopes) this.forgetIdle(now, limit);
      state = { tokens: capacity(limit), at: now, window: this.windowOf(now), pending: 0, known: 0, blockedUntil: 0 };
      this.states.set(scope, state);
    }
    return state;
  }

  private windowOf(nowMs: number) {
    const s = Math.floor(nowMs / 1000);
    return s - (s % this.windowSeconds);
  }

  private async count(scope: string, state: State, limit: Limit, now: number) {
    const window = this.windowOf(now);
    if (state.window !== window) Object.assign(state, { window, pending: 0, known: 0 });
    state.pending += 1;
    const quota = this.quota(limit);
    if (state.known + state.pending > quota) {
      // Known full already (this container's own count since the last add tips it over).
      state.blockedUntil = (window + this.windowSeconds) * 1000;
    }
    if (state.pending < Math.max(1, Math.floor(quota * this.syncShare())) || state.syncing) return;
    const n = state.pending;
    state.pending = 0;
    state.syncing = this.opts
      .shared!.add(scope, window, n, window + this.windowSeconds + 60)
      .then(
        (total) => {
          if (state.window !== window) return;
          state.known = Math.max(state.known, total);
          if (total >= quota) state.blockedUntil = Math.max(state.blockedUntil, (window + this.windowSeconds) * 1000);
        },
        (err) => {
          // The shared count is a refinement: a failing store leaves the per-container bucket in charge.
          if (state.window === window) state.pending += n;
          this.opts.onSyncError?.(err);
        },
      )
      .finally(() => {
        state.syncing = undefined;
      });
    await state.syncing;
  }

  private forgetIdle(now: number, limit: Limit) {
    const refillMs = limit.perMinute > 0 ? (capacity(limit) / limit.perMinute) * 60_000 : 0;
    for (const [scope, s] of this.states) {
      if (s.blockedUntil <= now && s.pending === 0 && now - s.at >= refillMs) this.states.delete(scope);
    }
    if (this.states.size >= this.maxScopes) this.states.clear();
  }

  /** Scopes held in memory (tests). */
  get size() {
    return this.states.size;
  }
}
