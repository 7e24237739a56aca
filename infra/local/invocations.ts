// Every function invocation the local runtime makes (a route's request, a poller's batch), counted per function
// with its wall time, so the bench can bill Lambda by what ran (bench/heat.ts): requests and GB-seconds.

export interface Tally {
  invocations: number;
  ms: number;
}

const tallies = new Map<string, Tally>();

/** Runs one invocation of the named function, counting it and its time (failures included: Lambda bills them too). */
export async function invoke<T>(name: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    const t = tallies.get(name) ?? { invocations: 0, ms: 0 };
    t.invocations++;
    t.ms += performance.now() - started;
    tallies.set(name, t);
  }
}

/** A copy of the tallies so far (function name → invocations and milliseconds). */
export function invocationTallies(): Map<string, Tally> {
  return new Map([...tallies].map(([name, t]) => [name, { ...t }]));
}
