import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '#shared/config.ts';
import { readiness, readinessChecks } from '#shared/domain/health.ts';
import { ServiceError } from '#shared/errors.ts';
import { client, runtime } from '../../support/runtime.ts';

// `GET /health` as a deployed function answers it: every dependency it can reach probed side by side
// (table, sealing key, both queues), 200 only when all answer, otherwise 503 naming what did not, within
// the readiness timeout even when a dependency hangs.

describe('readiness (/health)', () => {
  let base: string;
  beforeAll(async () => {
    base = (await runtime()).baseUrl;
  });

  it('reports every dependency it reached', async () => {
    const res = await client(base).get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok',
      dependencies: { table: 'ok', token_key: 'ok', events_queue: 'ok', deliveries_queue: 'ok' },
    });
  });

  it('answers 503 with Retry-After and the error body naming a queue that does not answer', async () => {
    const missing = config().eventsQueueUrl!.replace(/[^/]+$/, 'no-such-queue.fifo');
    const err = await readiness(readinessChecks({ events_queue: missing, deliveries_queue: config().deliveriesQueueUrl })).catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.kind).toBe('unavailable');
    expect(err.retryAfter).toBe(5);
    expect(err.body).toEqual({
      description: 'Not ready: events_queue did not answer',
      errors: [{ field: 'events_queue', message: 'did not answer within 1000 ms', code: 'unavailable' }],
    });
  });

  it('counts a dependency that hangs as failing instead of waiting for it', async () => {
    const never = () => new Promise(() => undefined);
    const err = await readiness({ ...readinessChecks(), table: never }, 50).catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.body.errors.map((e: { field: string }) => e.field)).toEqual(['table']);
    expect(err.body.errors[0].message).toBe('did not answer within 50 ms');
  });

  it('a dependency that fails outright is failing too; the rest are still reported ok', async () => {
    const checks = { ...readinessChecks(), token_key: () => Promise.reject(new Error('no key')) };
    const err = await readiness(checks).catch((e) => e);
    expect(err.body.errors.map((e: { field: string }) => e.field)).toEqual(['token_key']);
    const ok = await readiness(readinessChecks());
    expect(Object.keys(ok.dependencies).sort()).toEqual(['deliveries_queue', 'events_queue', 'table', 'token_key']);
  });
});
