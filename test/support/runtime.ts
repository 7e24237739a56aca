import { inject } from 'vitest';
import { startRuntime, type Runtime } from '../../infra/local/runtime.ts';
import { createPlatformApp } from '../../shared/domain/platform/service.ts';
import { client, seedAccountVia, type Client, type Res, type SeededAccount } from './http.ts';

export { client, type Client, type Res };

// The local runtime for this worker: real HTTP, real DynamoDB Local, real queues.

let shared: Promise<Runtime> | undefined;

export function runtime(): Promise<Runtime> {
  const worker = process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? '0';
  shared ??= startRuntime({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    awsEndpoint: inject('awsEndpoint'),
    accessKeyId: `worker${worker}`,
    namePrefix: `w${worker}-`,
    logLevel: process.env.LOG_LEVEL,
  });
  return shared;
}

/**
 * The worker's runtime if a file before this one started it, else undefined (nothing is started). A test
 * that changes process-wide state the runtime also uses (the sealing keys) pauses its pipeline meanwhile:
 * the files of a worker share its process, and earlier files' deliveries may still be retrying.
 */
export const startedRuntime = (): Promise<Runtime> | undefined => shared;

let counter = 0;
/** Unique within the run (workers share nothing, but files in one worker share the table). */
export const unique = (prefix = 'x') => `${prefix}${process.pid}-${Date.now().toString(36)}-${++counter}`;

/** A fresh platform app of its own, so tests never see each other's objects. */
export async function newPlatformApp() {
  const rt = await runtime();
  const app = await createPlatformApp(unique('app-'));
  return { ...app, api: client(rt.baseUrl, app.token) };
}

export type { SeededAccount };

/** An account with an administrator and an agent, made through the platform API as a customer would. */
export async function seedAccount(name = unique('acct-')): Promise<SeededAccount> {
  const rt = await runtime();
  const app = await newPlatformApp();
  return seedAccountVia(rt.baseUrl, app.api, name);
}

/** Asserts the error body (docs/contract.md#error-body) and returns it. */
/** Reads until `done` holds (state, not a stopwatch), failing with the last value read after `timeoutMs`. */
export async function untilState<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`state not reached: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  return last;
}

/** A 422 body's fields and their codes, `{field: code}`. */
export const fieldsOf = (b: { errors: { field: string; code: string }[] }) => Object.fromEntries(b.errors.map((e) => [e.field, e.code]));

export function expectErrorBody(res: Res, status: number) {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  const b = res.body;
  if (typeof b?.description !== 'string' || !Array.isArray(b?.errors)) throw new Error(`not an error body: ${res.text}`);
  for (const e of b.errors) {
    if (typeof e.field !== 'string' || typeof e.message !== 'string' || typeof e.code !== 'string') {
      throw new Error(`bad error entry: ${JSON.stringify(e)}`);
    }
  }
  return b as { description: string; errors: { field: string; message: string; code: string }[] };
}
