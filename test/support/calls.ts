import { AsyncLocalStorage } from 'node:async_hooks';
import { db } from '#shared/db/client.ts';

// The DynamoDB calls the handlers make, read from the SDK client they share with the test (the local
// runtime runs in the test's process): what a request costs in calls and which items it touches.

export interface RecordedDbCall {
  command: string;
  input: string;
}

/** Records every call from now on under `name` (one middleware per name); `take` returns and clears them. */
export function callRecorder(name: string) {
  let calls: RecordedDbCall[] = [];
  db().middlewareStack.add(
    (next, context) => async (args) => {
      calls.push({ command: String(context.commandName), input: JSON.stringify(args.input) });
      return next(args);
    },
    { step: 'initialize', name },
  );
  return {
    take(): RecordedDbCall[] {
      const out = calls;
      calls = [];
      return out;
    },
  };
}

/**
 * Records only the calls made inside `during(fn)`, by fn and whatever it awaits, however busy the rest of
 * the process is (the local runtime's pollers share the client): what one handler call costs.
 */
export function scopedCallRecorder(name: string) {
  const scope = new AsyncLocalStorage<RecordedDbCall[]>();
  db().middlewareStack.add(
    (next, context) => async (args) => {
      scope.getStore()?.push({ command: String(context.commandName), input: JSON.stringify(args.input) });
      return next(args);
    },
    { step: 'initialize', name },
  );
  return {
    async during<T>(fn: () => Promise<T>): Promise<{ result: T; calls: RecordedDbCall[] }> {
      const calls: RecordedDbCall[] = [];
      const result = await scope.run(calls, fn);
      return { result, calls };
    },
  };
}

/** One DynamoDB call made inside `ScopedReads.during`, with what it read and what DynamoDB billed for it. */
export interface ReadCall {
  command: string;
  /** The partition a Query read (its key condition's value). */
  partition?: string;
  index?: string;
  /** The partition keys a BatchGet asked for. */
  keys?: string[];
  /** Every item the call answered (pk and sk). */
  items: { pk: string; sk: string }[];
  rcu: number;
  start: number;
  end: number;
}

/**
 * Records the calls made inside `during(fn)` with their read units (`ReturnConsumedCapacity: TOTAL` is asked for),
 * the partitions and keys they read, the items they answered and their timing: what a call path reads, asserted
 * on items rather than timings. One middleware per name.
 */
export function scopedReads(name: string) {
  const scope = new AsyncLocalStorage<ReadCall[]>();
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const calls = scope.getStore();
      if (!calls) return next(args);
      const input = args.input as Record<string, any>;
      input.ReturnConsumedCapacity ??= 'TOTAL';
      const start = performance.now();
      const out = await next(args);
      const o = out.output as Record<string, any>;
      const values = input.ExpressionAttributeValues ?? {};
      const items = [
        ...(o.Items ?? []),
        ...(o.Item ? [o.Item] : []),
        ...Object.values((o.Responses ?? {}) as Record<string, unknown[]>).flat(),
      ] as { pk: string; sk: string }[];
      calls.push({
        command: String(context.commandName),
        partition: context.commandName === 'QueryCommand' ? String(values[':p'] ?? values[':pk'] ?? Object.values(values)[0]) : undefined,
        index: input.IndexName,
        keys:
          context.commandName === 'BatchGetItemCommand'
            ? Object.values(input.RequestItems as Record<string, { Keys: { pk: string }[] }>).flatMap((r) => r.Keys.map((k) => k.pk))
            : undefined,
        items: items.map((i) => ({ pk: i.pk, sk: i.sk })),
        rcu: ([o.ConsumedCapacity ?? []].flat() as { CapacityUnits?: number }[]).reduce((t, c) => t + (c.CapacityUnits ?? 0), 0),
        start,
        end: performance.now(),
      });
      return out;
    },
    { step: 'initialize', name },
  );
  return {
    async during<T>(fn: () => Promise<T>): Promise<{ result: T; calls: ReadCall[] }> {
      const calls: ReadCall[] = [];
      const result = await scope.run(calls, fn);
      return { result, calls };
    },
  };
}
