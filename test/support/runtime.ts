import { inject } from 'vitest';
import { startRuntime, type Runtime } from '../../infra/local/runtime.ts';
import { createPlatformApp } from '#shared/domain/platform/service.ts';
import { startProviderStub } from './providers.ts';
import { client, seedAccountVia, type Client, type Res, type SeededAccount } from './http.ts';

export { client, type Client, type Res };

// The local runtime for this worker process: real HTTP, real DynamoDB Local, real queues.

let shared: Promise<Runtime> | undefined;

/** Messaging providers answer from 127.0.0.1 unless a test names its own fake (test/support/providers.ts). */
async function withProviderStub() {
  const stub = await startProviderStub();
  for (const [k, v] of Object.entries(stub.env)) process.env[k] ??= v;
}

export function runtime(): Promise<Runtime> {
  const dynamodbEndpoint = inject('dynamodbEndpoint');
  const awsEndpoint = inject('awsEndpoint');
  // Without them startRuntime would start a DynamoDB Local (Java) of its own: a unit test must not.
  if (!dynamodbEndpoint || !awsEndpoint) {
    throw new Error(
      'this project starts no DynamoDB Local or emulator (unit tests run without them): a test of the local runtime belongs in test/integration or test/e2e',
    );
  }
  // Named by the process, not the vitest worker number: a number is handed again to the next project's
  // processes, which would find this one's items in the table and its messages in the queues.
  const id = `p${process.pid}`;
  shared ??= withProviderStub().then(() =>
    startRuntime({
      dynamodbEndpoint,
      awsEndpoint,
      accessKeyId: id,
      namePrefix: `${id}-`,
      logLevel: process.env.LOG_LEVEL,
      // A free port each; IMAP polls only when a test asks (runtime.pollImap).
      inboundSmtpPort: 0,
      imapPolling: false,
    }),
  );
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

/** A 422 body's fields and their codes, `{field: code}`. */
export const fieldsOf = (b: { errors: { field: string; code: string }[] }) => Object.fromEntries(b.errors.map((e) => [e.field, e.code]));

/** Asserts the spec's error body and returns it. */
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
