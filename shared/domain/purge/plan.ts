// Pure parts of the purge: the chunk budget and the order of a step list. A chunk runs steps in order
// until its budget of deletes is spent; a step reports whether it finished. Progress inside a step is
// what is left in the table (every step deletes an item's dependents before the item it found them
// by), so only the number of finished steps is checkpointed, and a rerun after a crash starts the
// unfinished step again from what is left.

/** Deletes one chunk may make (a dispatcher invocation's share of its time limit). */
export const DEFAULT_CHUNK_DELETES = 400;

export class Budget {
  deleted = 0;
  constructor(
    public left: number,
    /** Tests: throw (a crash) once this many deletes were made. */
    private readonly failAfter?: number,
  ) {}

  get spent() {
    return this.left <= 0;
  }

  /** Reserves room for `n` deletes; throws the injected crash when it is due. */
  take(n: number) {
    if (this.failAfter !== undefined && this.deleted + n > this.failAfter) throw new PurgeInterrupted();
    this.left -= n;
    this.deleted += n;
  }

  /**
   * Counts an index entry whose item is already gone against the chunk (no delete made): the indexes are
   * eventually consistent, so a chunk that keeps meeting such entries ends, and a later one finds them gone.
   */
  charge(n = 1) {
    this.left -= n;
  }

  /** A page size that never reads far beyond what may still be deleted. */
  page(max = 100) {
    return Math.max(1, Math.min(max, this.left));
  }
}

export class PurgeInterrupted extends Error {
  constructor() {
    super('purge interrupted (injected)');
  }
}

export type Step<C> = { name: string; run: (ctx: C, budget: Budget) => Promise<boolean> };

/** Runs steps from `from` on until one does not finish; the index of the first unfinished step (steps.length: all done). */
export async function runSteps<C>(steps: Step<C>[], from: number, ctx: C, budget: Budget): Promise<number> {
  let i = from;
  while (i < steps.length && !budget.spent) {
    if (!(await steps[i].run(ctx, budget))) return i;
    i++;
  }
  return i;
}

/** The `series` of every contribution of report facts (the report partitions the facts added to). */
export function seriesOfFacts(facts: { contributions?: { series?: unknown }[] }[]): string[] {
  const out = new Set<string>();
  for (const f of facts) for (const c of f.contributions ?? []) if (typeof c.series === 'string' && c.series) out.add(c.series);
  return [...out];
}
