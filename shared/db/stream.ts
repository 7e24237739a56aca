import { DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, type _Record } from '@aws-sdk/client-dynamodb-streams';
import { config } from '#shared/config.ts';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { Change } from '#shared/model/change.ts';

// The table's stream: its records read as changes, and records read with the DynamoDB Streams API in the
// shape Lambda hands a stream function (the local poller and the replay of failed records, which re-reads
// them from the stream, both need it).

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
      ApproximateCreationDateTime: d.ApproximateCreationDateTime
        ? Math.floor(new Date(d.ApproximateCreationDateTime).getTime() / 1000)
        : undefined,
      Keys: d.Keys as never,
      NewImage: normalizeImage(d.NewImage) as never,
      OldImage: normalizeImage(d.OldImage) as never,
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType as never,
    },
  };
}

const seq = (s: string | undefined) => BigInt(s || '0');

let streams: DynamoDBStreamsClient | undefined;

/** Where a batch of stream records sat (the event source mapping's failure entry names it). */
export interface StreamPosition {
  streamArn: string;
  shardId: string;
  startSequenceNumber: string;
  endSequenceNumber?: string;
  batchSize: number;
}

/** The records of a stream batch, re-read from the stream by position (Lambda's shape). */
export async function readStreamRecords(info: StreamPosition): Promise<DynamoDBRecord[]> {
  streams ??= new DynamoDBStreamsClient({ region: config().region, endpoint: config().dynamodbEndpoint });
  const it = await streams.send(
    new GetShardIteratorCommand({
      StreamArn: info.streamArn,
      ShardId: info.shardId,
      ShardIteratorType: 'AT_SEQUENCE_NUMBER',
      SequenceNumber: info.startSequenceNumber,
    }),
  );
  const out: DynamoDBRecord[] = [];
  const end = seq(info.endSequenceNumber || info.startSequenceNumber);
  let iterator = it.ShardIterator;
  // A shard that is still open answers empty pages at its tip: stop there, or once past the last record.
  for (let pages = 0; iterator && pages < 100; pages++) {
    const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 100 }));
    for (const r of page.Records ?? []) {
      if (seq(r.dynamodb?.SequenceNumber) > end) return out;
      out.push(toLambdaRecord(r, info.streamArn, config().region));
    }
    if (!page.Records?.length || out.length >= info.batchSize) break;
    iterator = page.NextShardIterator;
  }
  if (!out.length) throw new Error(`stream records ${info.startSequenceNumber}…${info.endSequenceNumber} are no longer in the stream`);
  return out;
}

const image = (img: unknown) => (img ? unmarshall(img as Record<string, AttributeValue>) : undefined);

/** Any stream record as a change, whatever its type (what the stream carries). */
export function recordChange(record: DynamoDBRecord): Change {
  const newImage = image(record.dynamodb?.NewImage);
  const oldImage = image(record.dynamodb?.OldImage);
  const type = String(newImage?.type ?? oldImage?.type ?? '');
  const keys = image(record.dynamodb?.Keys) ?? {};
  return {
    id: record.eventID ?? '',
    action: record.eventName as Change['action'],
    type,
    pk: String(keys.pk),
    sk: String(keys.sk),
    at: Number(record.dynamodb?.ApproximateCreationDateTime ?? Math.floor(Date.now() / 1000)),
    newImage,
    oldImage,
  };
}
