import { AsyncLocalStorage } from 'node:async_hooks';
import { observeAwsCalls, type AwsCall } from '#shared/aws/observe.ts';
import { observeConfigReads } from '#shared/config-reads.ts';

// What each function does with AWS and its environment while the local runtime runs it: the AWS calls
// (client, command, the input fields that name resources) and the environment variables behind every
// configuration field it reads. The HTTP server runs each route's handler, and each poller its function,
// as that function (asFunction); calls and reads outside any function (the runtime's own setup, tests)
// are not recorded. On with RECORD_AWS_CALLS=1 (the test suite sets it); the deploy proof
// (test/infra/deploy-proof.test.ts) checks the recording against the synthesized template.

const current = new AsyncLocalStorage<string>();

/** Runs `f` as the named function (route functions by `functionName`, pipeline ones by EVENT_FUNCTION_NAMES). */
export function asFunction<T>(name: string, f: () => T): T {
  if (recording) recordOf(recording, name);
  return current.run(name, f);
}

/** The input fields that name what a call touches (tables, indexes, queues, buckets, secrets, streams). */
export type CallTarget = Record<string, unknown>;

export interface RecordedCall {
  client: string;
  command: string;
  target: CallTarget;
}

export interface FunctionRecord {
  /** Distinct calls, keyed by client, command and target. */
  calls: Map<string, RecordedCall>;
  /** Environment variables read through shared/config.ts. */
  variables: Set<string>;
}

/** Function name → what it did; a function that ran at all has an entry. */
export type Recording = Map<string, FunctionRecord>;

const tablesOf = (items: unknown[] | undefined) =>
  (items ?? []).map((t) => {
    const [op, body] = Object.entries(t as Record<string, { TableName?: string }>)[0] ?? [];
    return { op, table: body?.TableName };
  });

function targetOf(input: Record<string, unknown>): CallTarget {
  const t: CallTarget = {};
  for (const k of ['TableName', 'IndexName', 'QueueUrl', 'Bucket', 'SecretId', 'StreamArn']) if (input[k] !== undefined) t[k] = input[k];
  // An object's first path segment: a role may be allowed one prefix of a bucket only (the dispatcher: exports/).
  if (typeof input.Key === 'string' && input.Key.includes('/')) t.KeyPrefix = `${input.Key.split('/')[0]}/`;
  if (Array.isArray(input.TransactItems)) t.TransactItems = tablesOf(input.TransactItems);
  if (input.RequestItems && typeof input.RequestItems === 'object') {
    t.RequestItems = Object.entries(input.RequestItems as Record<string, unknown>).map(([table, v]) => ({
      table,
      ops: Array.isArray(v) ? [...new Set(v.map((r) => Object.keys(r as object)[0]))].sort() : ['Get'],
    }));
  }
  return t;
}

let recording: Recording | undefined;

function recordOf(rec: Recording, fn: string): FunctionRecord {
  let r = rec.get(fn);
  if (!r) rec.set(fn, (r = { calls: new Map(), variables: new Set() }));
  return r;
}

/** Starts recording (once per process) and returns the recording, which grows as functions run. */
export function startRecording(): Recording {
  if (recording) return recording;
  const rec: Recording = new Map();
  const of = (fn: string) => recordOf(rec, fn);
  observeAwsCalls((call: AwsCall) => {
    const fn = current.getStore();
    if (!fn) return;
    const target = targetOf(call.input);
    const key = `${call.client} ${call.command} ${JSON.stringify(target)}`;
    const r = of(fn);
    if (!r.calls.has(key)) r.calls.set(key, { client: call.client, command: call.command, target });
  });
  observeConfigReads((names) => {
    const fn = current.getStore();
    if (fn) for (const n of names) of(fn).variables.add(n);
  });
  recording = rec;
  return rec;
}

/** The recording, when on. */
export const recorded = (): Recording | undefined => recording;

/** Stops recording (the deploy proof, so that the files after it in its worker run as without it). */
export function stopRecording(): void {
  observeAwsCalls(undefined);
  observeConfigReads(undefined);
  recording = undefined;
}
