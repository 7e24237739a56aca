import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';

// A record read with the DynamoDB Streams API, in the shape Lambda hands a stream function: the local
// poller and the replay of failed records (which re-reads them from the stream) both need it.

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
