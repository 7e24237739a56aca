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
