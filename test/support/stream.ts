import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { recordChange } from '../../shared/db/stream.ts';
import type { Change } from '../../shared/model/change.ts';
import { runtime } from './runtime.ts';
import { toLambdaRecord } from '../../shared/db/stream.ts';

// What the table's stream carries, read independently of the pipeline's own poller (stream reads do
// not consume), as the event pipeline will see it.

export async function streamChanges(filter: (c: Change) => boolean = () => true): Promise<Change[]> {
  const rt = await runtime();
  const cfg = { region: process.env.AWS_REGION ?? 'us-east-1', endpoint: rt.dynamodbEndpoint };
  const table = await new DynamoDBClient(cfg).send(new DescribeTableCommand({ TableName: rt.tableName }));
  const streamArn = table.Table!.LatestStreamArn!;
  const streams = new DynamoDBStreamsClient(cfg);
  const desc = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  const out: Change[] = [];
  for (const shard of desc.StreamDescription?.Shards ?? []) {
    let iterator = (
      await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId!, ShardIteratorType: 'TRIM_HORIZON' }))
    ).ShardIterator;
    while (iterator) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      for (const r of page.Records ?? []) {
        const change = recordChange(toLambdaRecord(r, streamArn, cfg.region));
        if (filter(change)) out.push(change);
      }
      // An open shard keeps handing out iterators; stop once it has nothing more.
      if (!page.Records?.length) break;
      iterator = page.NextShardIterator;
    }
  }
  return out;
}
