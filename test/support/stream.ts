import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { recordChange } from '#shared/db/stream.ts';
import type { Change } from '#shared/model/change.ts';
import { runtime } from './runtime.ts';
import { toLambdaRecord } from '#shared/db/stream.ts';
import type { DynamoDBRecord } from 'aws-lambda';

// What the table's stream carries, read independently of the pipeline's own poller (stream reads do
// not consume), as the event pipeline will see it.
//
// The worker's table is shared by every file the worker runs, so its stream grows with the run: read
// from the start at every call, a file late in the run waited on tens of thousands of records (and a
// busy machine made that exceed a test's timeout). The process reads each record once: it keeps the
// changes read so far and, per shard, where it stopped, and every call reads only what came since.

interface Shard {
  /** The last record read, after which the next call starts. */
  lastSequence?: string;
  /** A closed shard read to its end: nothing more can come. */
  done: boolean;
}

interface Read {
  streamArn: string;
  shards: Map<string, Shard>;
  changes: Change[];
  /** The same records in the shape Lambda hands the stream function (to hand one to a stage again). */
  records: DynamoDBRecord[];
}

let read: Read | undefined;
// Calls of one process catch up one after another: two at once would both add the same records.
let catchingUp: Promise<void> = Promise.resolve();

export async function streamChanges(filter: (c: Change) => boolean = () => true): Promise<Change[]> {
  const step = catchingUp.then(catchUp);
  catchingUp = step.catch(() => undefined);
  await step;
  return read!.changes.filter(filter);
}

/** The stream's records (Lambda's shape) whose changes pass `filter`. */
export async function streamRecords(filter: (c: Change) => boolean = () => true): Promise<DynamoDBRecord[]> {
  const step = catchingUp.then(catchUp);
  catchingUp = step.catch(() => undefined);
  await step;
  return read!.records.filter((_r, i) => filter(read!.changes[i]));
}

async function catchUp(): Promise<void> {
  const rt = await runtime();
  const cfg = { region: process.env.AWS_REGION ?? 'us-east-1', endpoint: rt.dynamodbEndpoint };
  const table = await new DynamoDBClient(cfg).send(new DescribeTableCommand({ TableName: rt.tableName }));
  const streamArn = table.Table!.LatestStreamArn!;
  if (read?.streamArn !== streamArn) read = { streamArn, shards: new Map(), changes: [], records: [] };
  const { shards, changes, records } = read;
  const streams = new DynamoDBStreamsClient(cfg);
  const desc = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  for (const { ShardId } of desc.StreamDescription?.Shards ?? []) {
    const shard = shards.get(ShardId!) ?? { done: false };
    shards.set(ShardId!, shard);
    if (shard.done) continue;
    let iterator = (
      await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: ShardId!,
          ...(shard.lastSequence
            ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: shard.lastSequence }
            : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      )
    ).ShardIterator;
    while (iterator) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      for (const r of page.Records ?? []) {
        const record = toLambdaRecord(r, streamArn, cfg.region);
        records.push(record);
        changes.push(recordChange(record));
        shard.lastSequence = r.dynamodb?.SequenceNumber ?? shard.lastSequence;
      }
      iterator = page.NextShardIterator;
      if (!iterator) shard.done = true;
      // An open shard keeps handing out iterators; stop once it has nothing more.
      if (!page.Records?.length) break;
    }
  }
}
