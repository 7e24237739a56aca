import {
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { toLambdaRecord } from '#shared/db/stream.ts';
import { lambdaContext } from './http-server.ts';
import { invoke } from './invocations.ts';

// In-process stand-ins for Lambda's event source mappings: the same event shapes, batch item
// failures honoured, bounded retries.

export interface Poller {
  stop(): Promise<void>;
  /**
   * Resolves once the poller has read everything written before the call (a full pass that found nothing
   * new, its batches handled), or after `timeoutMs`. Only the stream poller has an end to reach.
   */
  drain?(timeoutMs: number): Promise<void>;
}

type StreamHandler = (event: DynamoDBStreamEvent, ctx: ReturnType<typeof lambdaContext>) => Promise<DynamoDBBatchResponse | undefined>;
type QueueHandler = (event: SQSEvent, ctx: ReturnType<typeof lambdaContext>) => Promise<SQSBatchResponse | undefined>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export { toLambdaRecord };

/** How a stream event source mapping treats a failing batch (infra/pipeline.ts STREAM_SOURCE). */
export interface StreamFailureSettings {
  batchSize: number;
  retryAttempts: number;
  bisectBatchOnFunctionError: boolean;
  /** First retry delay, doubling per retry. */
  localRetryBaseMs: number;
}

/** Records that still failed after their retries, alone when bisecting: what Lambda sends to the on-failure destination. */
export type StreamFailureHandler = (
  records: DynamoDBRecord[],
  info: { shardId: string; error: unknown; attempts: number },
) => Promise<void>;

export function pollStream(opts: {
  client: DynamoDBStreamsClient;
  streamArn: string;
  region: string;
  handler: StreamHandler;
  name: string;
  /** Shards that exist at start are read from their tip (persisted data was already processed). */
  fromLatest: boolean;
  settings: StreamFailureSettings;
  onFailure: StreamFailureHandler;
}): Poller {
  let running = true;
  const iterators = new Map<string, string | null>();
  let pass = 0;
  const drained: { after: number; done: () => void }[] = [];
  const loop = (async () => {
    let first = true;
    let described = 0;
    let shardEnded = false;
    let idleFor = 0;
    while (running) {
      try {
        // New shards are rare (DynamoDB Local rolls them over hours apart): the stream is described once a
        // second, or at once when a shard ended, not on every poll.
        if (first || shardEnded || Date.now() - described > 1000) {
          described = Date.now();
          shardEnded = false;
          const desc = await opts.client.send(new DescribeStreamCommand({ StreamArn: opts.streamArn }));
          for (const shard of desc.StreamDescription?.Shards ?? []) {
            if (!shard.ShardId || iterators.has(shard.ShardId)) continue;
            const it = await opts.client.send(
              new GetShardIteratorCommand({
                StreamArn: opts.streamArn,
                ShardId: shard.ShardId,
                ShardIteratorType: first && opts.fromLatest ? 'LATEST' : 'TRIM_HORIZON',
              }),
            );
            iterators.set(shard.ShardId, it.ShardIterator ?? null);
          }
        }
        first = false;
        let idle = true;
        const thisPass = ++pass;
        for (const [shardId, iterator] of iterators) {
          if (!iterator || !running) continue;
          const out = await opts.client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: opts.settings.batchSize }));
          const records = (out.Records ?? []).map((r) => toLambdaRecord(r, opts.streamArn, opts.region));
          if (records.length) {
            idle = false;
            await deliverStreamBatch(records, { ...opts, shardId });
          }
          // Only past a batch once it is handled: should that throw, the same records are read again.
          iterators.set(shardId, out.NextShardIterator ?? null);
          if (!out.NextShardIterator) shardEnded = true;
        }
        if (idle) {
          for (let i = drained.length - 1; i >= 0; i--) {
            if (drained[i].after < thisPass) drained.splice(i, 1)[0].done();
          }
        }
        // Idle polls back off from 5 ms to 40 ms: a write reaches the pipeline within a few ms when
        // traffic flows, without spinning on a quiet machine.
        idleFor = idle ? Math.min(idleFor ? idleFor * 2 : 5, 40) : 0;
        if (idleFor) await sleep(idleFor);
      } catch (err) {
        if (!running) break;
        process.stderr.write(`local runtime: stream poller ${opts.name}: ${(err as Error).message}\n`);
        await sleep(500);
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      for (const d of drained.splice(0)) d.done();
    },
    drain(timeoutMs) {
      if (!running) return Promise.resolve();
      return new Promise<void>((done) => {
        // A pass that began before this call may have missed the last writes: the next full pass counts.
        drained.push({ after: pass, done });
        setTimeout(done, timeoutMs).unref();
      });
    },
  };
}

/**
 * Lambda's handling of a stream batch, by the mapping's settings: the batch is retried from its first
 * failed record; once the retries are spent it is split in two and each half tried on its own (the half
 * holding the known failure without further retries, the other with fresh ones), down to the single
 * record that still fails, which goes to the failure destination alone. The records after it go on, in
 * order. A destination that cannot take the record stops the shard, as Lambda does, rather than lose it.
 */
export async function deliverStreamBatch(
  records: DynamoDBRecord[],
  opts: { handler: StreamHandler; name: string; shardId: string; settings: StreamFailureSettings; onFailure: StreamFailureHandler },
  retriesLeft = opts.settings.retryAttempts,
): Promise<void> {
  const { settings } = opts;
  let remaining = records;
  let attempts = 0;
  let left = retriesLeft;
  for (;;) {
    let failedFrom = -1;
    let error: unknown;
    attempts++;
    try {
      const res = await invoke(opts.name, () => opts.handler({ Records: remaining }, lambdaContext(opts.name)));
      const first = res?.batchItemFailures?.[0]?.itemIdentifier;
      if (first) {
        failedFrom = remaining.findIndex((r) => r.dynamodb?.SequenceNumber === first);
        // An identifier that names no record of the batch fails the whole batch (Lambda's rule).
        if (failedFrom < 0) failedFrom = 0;
        error = new Error(`record ${first} reported as failed`);
      }
    } catch (err) {
      failedFrom = 0;
      error = err;
    }
    if (failedFrom < 0) return;
    remaining = remaining.slice(failedFrom);
    if (left > 0) {
      left--;
      await sleep(settings.localRetryBaseMs * 2 ** (retriesLeft - left - 1));
      continue;
    }
    if (remaining.length === 1 || !settings.bisectBatchOnFunctionError) {
      await opts.onFailure(remaining, { shardId: opts.shardId, error, attempts });
      return;
    }
    const half = Math.ceil(remaining.length / 2);
    await deliverStreamBatch(remaining.slice(0, half), opts, 0);
    await deliverStreamBatch(remaining.slice(half), opts, settings.retryAttempts);
    return;
  }
}

export function pollQueue(opts: {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  region: string;
  handler: QueueHandler;
  name: string;
  batchSize: number;
  /** Batches in flight at once, as Lambda runs several invocations side by side. */
  concurrency?: number;
  /** The function's timeout, as its context tells it (`getRemainingTimeInMillis`); the deployed one. */
  timeoutMs?: number;
}): Poller {
  let running = true;
  const inFlight = new Set<Promise<void>>();

  const handleBatch = async (messages: Message[]) => {
    const records: SQSRecord[] = messages.map((m) => ({
      messageId: m.MessageId!,
      receiptHandle: m.ReceiptHandle!,
      body: m.Body ?? '',
      attributes: m.Attributes as never,
      messageAttributes: Object.fromEntries(
        Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [
          k,
          { stringValue: v.StringValue, binaryValue: v.BinaryValue?.toString(), dataType: v.DataType ?? 'String' },
        ]),
      ) as never,
      md5OfBody: m.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: opts.queueArn,
      awsRegion: opts.region,
    }));
    let failed = new Set<string>();
    try {
      const res = await invoke(opts.name, () => opts.handler({ Records: records }, lambdaContext(opts.name, opts.timeoutMs)));
      failed = new Set((res?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (err) {
      // The whole batch returns to the queue after its visibility timeout, as with Lambda.
      process.stderr.write(`local runtime: ${opts.name} failed: ${(err as Error).message}\n`);
      failed = new Set(records.map((r) => r.messageId));
    }
    const done = records.filter((r) => !failed.has(r.messageId));
    if (done.length) {
      await opts.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: opts.queueUrl,
          Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
        }),
      );
    }
  };

  const loop = (async () => {
    while (running) {
      try {
        if (inFlight.size >= (opts.concurrency ?? 5)) {
          await Promise.race(inFlight);
          continue;
        }
        const out = await opts.client.send(
          new ReceiveMessageCommand({
            QueueUrl: opts.queueUrl,
            MaxNumberOfMessages: opts.batchSize,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
        );
        // Handled even when a stop came meanwhile: a receive is never abandoned (see stop).
        const messages = out.Messages ?? [];
        if (!messages.length) continue;
        const p: Promise<void> = handleBatch(messages)
          .catch((err) => void process.stderr.write(`local runtime: queue poller ${opts.name}: ${(err as Error).message}\n`))
          .finally(() => inFlight.delete(p));
        inFlight.add(p);
      } catch (err) {
        if (!running) break;
        process.stderr.write(`local runtime: queue poller ${opts.name}: ${(err as Error).message}\n`);
        await sleep(500);
      }
    }
    await Promise.all(inFlight);
  })();
  return {
    /**
     * Waits for the receive under way (at most its one-second wait) and handles what it brings. Aborting
     * it instead would end only this side: the queue still hands the next messages to the abandoned
     * receive, and they stay invisible to every poller for the queue's visibility timeout (60 s for
     * events, 120 s for deliveries). A pause and resume then lost the next writes' events for a minute.
     */
    async stop() {
      running = false;
      await loop;
    },
  };
}
