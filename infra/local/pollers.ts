import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { lambdaContext } from './http-server.ts';

// In-process stand-ins for Lambda's event source mappings: the same event shapes, batch item
// failures honoured, bounded retries.

export interface Poller {
  stop(): Promise<void>;
}

type StreamHandler = (event: DynamoDBStreamEvent, ctx: ReturnType<typeof lambdaContext>) => Promise<DynamoDBBatchResponse | void>;
type QueueHandler = (event: SQSEvent, ctx: ReturnType<typeof lambdaContext>) => Promise<SQSBatchResponse | void>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The Streams SDK turns an empty map `{M: {}}` into `{}`; Lambda's events carry the former. */
function normalize(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  const v = value as Record<string, unknown>;
  if (Object.keys(v).length === 0) return { M: {} };
  if (v.M && typeof v.M === 'object') return { M: normalizeImage(v.M as Record<string, unknown>) };
  if (Array.isArray(v.L)) return { L: v.L.map(normalize) };
  return v;
}

function normalizeImage(image: Record<string, unknown> | undefined) {
  if (!image) return undefined;
  return Object.fromEntries(Object.entries(image).map(([k, v]) => [k, normalize(v)]));
}

export function toLambdaRecord(r: _Record, streamArn: string, region: string): DynamoDBRecord {
  const d = r.dynamodb ?? {};
  return {
    eventID: r.eventID,
    eventName: r.eventName as DynamoDBRecord['eventName'],
    eventVersion: r.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: d.ApproximateCreationDateTime ? Math.floor(new Date(d.ApproximateCreationDateTime).getTime() / 1000) : undefined,
      Keys: d.Keys as never,
      NewImage: normalizeImage(d.NewImage) as never,
      OldImage: normalizeImage(d.OldImage) as never,
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType as never,
    },
  };
}

export function pollStream(opts: {
  client: DynamoDBStreamsClient;
  streamArn: string;
  region: string;
  handler: StreamHandler;
  name: string;
  /** Shards that exist at start are read from their tip (persisted data was already processed). */
  fromLatest: boolean;
  batchSize?: number;
  maxRetries?: number;
  onDrop?: (records: DynamoDBRecord[], error: unknown) => void;
}): Poller {
  let running = true;
  const iterators = new Map<string, string | null>();
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
        for (const [shardId, iterator] of iterators) {
          if (!iterator || !running) continue;
          const out = await opts.client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: opts.batchSize ?? 100 }));
          iterators.set(shardId, out.NextShardIterator ?? null);
          if (!out.NextShardIterator) shardEnded = true;
          const records = (out.Records ?? []).map((r) => toLambdaRecord(r, opts.streamArn, opts.region));
          if (records.length) {
            idle = false;
            await deliverStreamBatch(records, opts);
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
    },
  };
}

async function deliverStreamBatch(
  records: DynamoDBRecord[],
  opts: { handler: StreamHandler; name: string; maxRetries?: number; onDrop?: (r: DynamoDBRecord[], e: unknown) => void },
) {
  let remaining = records;
  let attempts = 0;
  while (remaining.length) {
    let failedFrom = -1;
    let error: unknown;
    try {
      const res = await opts.handler({ Records: remaining }, lambdaContext(opts.name));
      const first = res?.batchItemFailures?.[0]?.itemIdentifier;
      if (first) failedFrom = remaining.findIndex((r) => r.dynamodb?.SequenceNumber === first);
    } catch (err) {
      failedFrom = 0;
      error = err;
    }
    if (failedFrom < 0) return;
    remaining = remaining.slice(failedFrom);
    if (++attempts > (opts.maxRetries ?? 3)) {
      // Lambda would send these to the on-failure destination and move on.
      opts.onDrop?.(remaining, error);
      return;
    }
    await sleep(100 * 2 ** attempts);
  }
}

export function pollQueue(opts: {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  region: string;
  handler: QueueHandler;
  name: string;
  batchSize?: number;
  /** Batches in flight at once, as Lambda runs several invocations side by side. */
  concurrency?: number;
}): Poller {
  let running = true;
  const abort = new AbortController();
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
      const res = await opts.handler({ Records: records }, lambdaContext(opts.name));
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
            MaxNumberOfMessages: opts.batchSize ?? 10,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        );
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
    async stop() {
      running = false;
      abort.abort();
      await loop;
    },
  };
}
