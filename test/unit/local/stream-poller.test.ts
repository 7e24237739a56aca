import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { deliverStreamBatch, type StreamFailureSettings } from '../../../infra/local/pollers.ts';
import { STREAM_SOURCE } from '../../../infra/pipeline.ts';

// The local stand-in for the stream event source mapping: retries, then bisection down to the one
// record that keeps failing, which goes alone to the failure destination while the others go on.

const settings: StreamFailureSettings = { ...STREAM_SOURCE, localRetryBaseMs: 1 };
const records = (n: number): DynamoDBRecord[] =>
  Array.from({ length: n }, (_, i) => ({ eventID: `e${i}`, dynamodb: { SequenceNumber: String(100 + i) } }));

function harness(fails: (r: DynamoDBRecord, attempt: number) => boolean, mode: 'report' | 'throw') {
  const handled: string[] = [];
  const failed: { ids: string[]; attempts: number }[] = [];
  const tries = new Map<string, number>();
  const handler = async (event: DynamoDBStreamEvent) => {
    for (const r of event.Records) {
      const n = (tries.get(r.eventID!) ?? 0) + 1;
      tries.set(r.eventID!, n);
      if (fails(r, n)) {
        if (mode === 'throw') throw new Error(`boom ${r.eventID}`);
        return { batchItemFailures: [{ itemIdentifier: r.dynamodb!.SequenceNumber! }] };
      }
      if (!handled.includes(r.eventID!)) handled.push(r.eventID!);
    }
    return { batchItemFailures: [] };
  };
  const run = (rs: DynamoDBRecord[]) =>
    deliverStreamBatch(rs, {
      handler,
      name: 'stream',
      shardId: 'shard-1',
      settings,
      onFailure: async (r, info) => void failed.push({ ids: r.map((x) => x.eventID!), attempts: info.attempts }),
    });
  return { run, handled, failed, tries };
}

describe('local stream poller', () => {
  it('reads its settings from the one object the CDK mapping reads', () => {
    expect(STREAM_SOURCE).toMatchObject({
      retryAttempts: 3,
      bisectBatchOnFunctionError: true,
      reportBatchItemFailures: true,
      batchSize: 100,
    });
  });

  for (const mode of ['report', 'throw'] as const) {
    it(`isolates one permanently failing record (${mode}) and delivers every other record in order`, async () => {
      const h = harness((r) => r.eventID === 'e37', mode);
      await h.run(records(100));
      expect(h.failed).toEqual([{ ids: ['e37'], attempts: expect.any(Number) }]);
      expect(h.handled).toEqual(
        records(100)
          .map((r) => r.eventID)
          .filter((id) => id !== 'e37'),
      );
    });
  }

  it('retries a record that fails for a while, and sends nothing to the failure destination', async () => {
    const h = harness((r, n) => r.eventID === 'e3' && n <= STREAM_SOURCE.retryAttempts, 'report');
    await h.run(records(10));
    expect(h.failed).toEqual([]);
    expect(h.handled).toEqual(records(10).map((r) => r.eventID));
    expect(h.tries.get('e3')).toBe(STREAM_SOURCE.retryAttempts + 1);
  });

  it('isolates two failing records separately', async () => {
    const h = harness((r) => r.eventID === 'e2' || r.eventID === 'e8', 'throw');
    await h.run(records(12));
    expect(h.failed.map((f) => f.ids)).toEqual([['e2'], ['e8']]);
    expect(h.handled).toHaveLength(10);
  });

  it('gives the failing record its retries before it goes (retryAttempts + 1 tries at least)', async () => {
    const h = harness((r) => r.eventID === 'e0', 'report');
    await h.run(records(1));
    expect(h.tries.get('e0')).toBe(STREAM_SOURCE.retryAttempts + 1);
    expect(h.failed).toEqual([{ ids: ['e0'], attempts: STREAM_SOURCE.retryAttempts + 1 }]);
  });
});
