import { afterEach, describe, expect, it, vi } from 'vitest';
import { resetConfig } from '#shared/config.ts';
import { METRIC_NAMES, METRICS_NAMESPACE } from '#shared/metric-names.ts';
import * as metrics from '#shared/metrics.ts';

// The counters as CloudWatch reads them: one embedded-metric-format line per invocation.
async function emitted(env: Record<string, string | undefined>, run: (m: typeof metrics) => Promise<void>) {
  const saved = { ...process.env };
  Object.assign(process.env, { TABLE_NAME: 't', ...env });
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
  resetConfig();
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await run(metrics);
  } finally {
    spy.mockRestore();
    process.env = saved;
    resetConfig();
  }
  return lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.includes('_aws'))
    .map((l) => JSON.parse(l));
}

afterEach(() => vi.restoreAllMocks());

describe('custom metrics', () => {
  it('flushes the counters of an invocation as one EMF line in the service namespace', async () => {
    const lines = await emitted({ SERVICE_NAME: 'Support', LOG_LEVEL: 'SILENT' }, async ({ count, observed }) => {
      await observed(async () => {
        count(METRIC_NAMES.deliveriesSucceeded);
        count(METRIC_NAMES.deliveriesSucceeded);
        count(METRIC_NAMES.deliveriesFailed);
      })({});
    });
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: METRICS_NAMESPACE, Dimensions: [['service']] });
    expect(line.service).toBe('Support');
    expect(line[METRIC_NAMES.deliveriesSucceeded]).toEqual([1, 1]);
    expect(line[METRIC_NAMES.deliveriesFailed]).toBe(1);
  });

  it('flushes even when the invocation fails, and writes nothing without counters or without SERVICE_NAME', async () => {
    const failed = await emitted({ SERVICE_NAME: 'Support', LOG_LEVEL: 'SILENT' }, async ({ count, observed }) => {
      await expect(
        observed(async () => {
          count(METRIC_NAMES.eventsDispatched);
          throw new Error('boom');
        })({}),
      ).rejects.toThrow('boom');
    });
    expect(failed.map((l) => l[METRIC_NAMES.eventsDispatched])).toEqual([1]);
    expect(
      await emitted({ SERVICE_NAME: 'Support', LOG_LEVEL: 'SILENT' }, async ({ observed }) => void (await observed(async () => 1)({}))),
    ).toEqual([]);
    expect(
      await emitted(
        { SERVICE_NAME: undefined, LOG_LEVEL: 'SILENT' },
        async ({ count, observed }) => void (await observed(async () => count(METRIC_NAMES.rulesRun))({})),
      ),
    ).toEqual([]);
  });
});
