// Waiting on state, never on a stopwatch: the one polling loop of the tests (no vitest imports here: the
// bench's helpers may use it too).

export interface UntilOptions {
  /** What is awaited, for the failure message (a function when it tells how far it got). */
  what?: string | (() => string);
  /** Fails once this has passed without a value (default 30 s). */
  timeoutMs?: number;
  /** The pause between two reads (default 100 ms). */
  everyMs?: number;
}

type Maybe<T> = T | undefined | null | false;

const shown = (v: unknown) => {
  try {
    return (JSON.stringify(v) ?? String(v)).slice(0, 2000);
  } catch {
    return String(v);
  }
};

/** The failure of a wait that ran out of time (an error the probe threw is passed on as it is). */
export class TimedOut extends Error {}

/**
 * Reads `probe` until it gives a value (anything truthy) and returns that value. It reads at least once,
 * however short the timeout; after the timeout it fails, naming what it waited for and the last read.
 */
export async function until<T>(probe: () => Maybe<T> | Promise<Maybe<T>>, opts: UntilOptions = {}): Promise<T> {
  const { what = 'a value', timeoutMs = 30_000, everyMs = 100 } = opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline)
      throw new TimedOut(
        `timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what} (last read: ${shown(value)})`,
      );
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Reads until `done` holds for what `read` gives, and returns that; fails with the last value read. */
export async function untilState<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  let last: T | undefined;
  try {
    const reached = await until(
      async () => {
        last = await read();
        return done(last) && { value: last };
      },
      { timeoutMs },
    );
    return reached.value;
  } catch (err) {
    if (err instanceof TimedOut) throw new TimedOut(`state not reached in ${timeoutMs} ms: ${shown(last)}`);
    throw err;
  }
}
