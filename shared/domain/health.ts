import { config } from '#shared/config.ts';
import { getItem } from '#shared/db/repositories/common.ts';
import * as keys from '#shared/db/keys.ts';
import { queueDepth } from '#shared/queues/client.ts';
import { keyring } from '#shared/crypto/tokens.ts';
import { ServiceError } from '#shared/errors.ts';

/** The Chatwoot release whose API this service speaks (clients compare it to gate features). */
export const CHATWOOT_API_VERSION = '4.10.0';

// A status probe must answer quickly even when a dependency hangs: past this it counts as failing.
const PROBE_TIMEOUT_MS = 2000;
/** `/health` is polled by load balancers and deploy checks: it answers within this, whatever hangs. */
export const READINESS_TIMEOUT_MS = 1000;

type Status = 'ok' | 'failing';

export async function probe(check: () => Promise<unknown>, timeoutMs = PROBE_TIMEOUT_MS): Promise<Status> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Status>((resolve) => {
    timer = setTimeout(() => resolve('failing'), timeoutMs);
  });
  try {
    return await Promise.race([
      check().then(
        (): Status => 'ok',
        (): Status => 'failing',
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const queueAnswers = (url: string | undefined) => async () => {
  if (!url) throw new Error('queue not configured');
  await queueDepth(url);
};

/** `YYYY-MM-DD HH:MM:SS` in UTC, Rails' `:db` format that Chatwoot's `GET /api` shows. */
export const dbTimestamp = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

/**
 * Chatwoot's `GET /api`: `queue_services` stands for what Redis is there (the event pipeline's queues),
 * `data_services` for Postgres (the table). Each is a real round trip, side by side.
 */
export async function serviceStatus(queues = [config().eventsQueueUrl, config().deliveriesQueueUrl]) {
  const [data, ...queueStates] = await Promise.all([
    probe(() => getItem(keys.sequence('health'))),
    ...queues.map((url) => probe(queueAnswers(url))),
  ]);
  return {
    version: CHATWOOT_API_VERSION,
    timestamp: dbTimestamp(new Date()),
    queue_services: queueStates.every((s) => s === 'ok') ? 'ok' : 'failing',
    data_services: data,
  };
}

export type Checks = Record<string, () => Promise<unknown>>;

/**
 * What `/health` probes, side by side: the table (one GetItem), the sealing key (loaded once per container:
 * Secrets Manager deployed), and each queue it is told of (GetQueueAttributes). Locally the server answers
 * 503 before all of it has started (infra/local/http-server.ts); deployed, this is the readiness.
 */
export function readinessChecks(
  queues: Record<string, string | undefined> = { events_queue: config().eventsQueueUrl, deliveries_queue: config().deliveriesQueueUrl },
): Checks {
  return {
    table: () => getItem(keys.sequence('health')),
    token_key: () => keyring(),
    ...Object.fromEntries(
      Object.entries(queues)
        .filter(([, url]) => url)
        .map(([name, url]) => [name, queueAnswers(url)]),
    ),
  };
}

/**
 * `GET /health`: 200 `{status: 'ok', dependencies: {name: 'ok'}}` when every dependency answered within
 * READINESS_TIMEOUT_MS; otherwise 503 with Retry-After and one error entry per failing dependency.
 */
export async function readiness(checks: Checks = readinessChecks(), timeoutMs = READINESS_TIMEOUT_MS) {
  const names = Object.keys(checks);
  const states = await Promise.all(names.map((n) => probe(checks[n]!, timeoutMs)));
  const dependencies = Object.fromEntries(names.map((n, i) => [n, states[i]!]));
  const failing = names.filter((n) => dependencies[n] !== 'ok');
  if (!failing.length) return { status: 'ok' as const, dependencies };
  throw new ServiceError(
    'unavailable',
    `Not ready: ${failing.join(', ')} did not answer`,
    failing.map((field) => ({ field, message: `did not answer within ${timeoutMs} ms`, code: 'unavailable' })),
    5,
  );
}
