import { DeleteObjectCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBRecord } from 'aws-lambda';
import { config } from '#shared/config.ts';
import { log } from '#shared/log.ts';
import { forwardChanges } from './forward.ts';
import { decodeQueueBody, encodeQueueBody } from '#shared/codec/queue-text.ts';
import { readStreamRecords } from '#shared/db/stream.ts';

// The stream's failure destination: what one entry says, and how it is replayed. The destination is a
// bucket (infra/pipeline.ts STREAM_SOURCE.failureDestination): deployed, Lambda writes its invocation
// record there as one object per failed batch (bisected: one record), with the invocation event itself
// as `payload`, i.e. the record's content; the bucket notifies the failure queue of each object, and that
// queue is what raises the alarm and what `npm run replay -- stream-failures` reads. The local poller
// writes the same object to the emulated bucket and the same notification to the queue.
// A replay forwards the records again, read from the object (older entries: from the queue message, or
// by shard position from the stream, which keeps them 24 hours), and deletes the object.

export interface StreamBatchInfo {
  shardId: string;
  startSequenceNumber: string;
  endSequenceNumber: string;
  approximateArrivalOfFirstRecord?: string;
  approximateArrivalOfLastRecord?: string;
  batchSize: number;
  streamArn: string;
}

export interface StreamFailure {
  version: string;
  timestamp: string;
  requestContext: { requestId: string; functionArn: string; condition: string; approximateInvokeCount: number };
  responseContext: { statusCode: number; executedVersion: string; functionError?: string };
  DDBStreamBatchInfo: StreamBatchInfo;
  /** The invocation event as JSON (`{"Records":[…]}`): what Lambda adds in an S3 destination's object. */
  payload?: string | { Records?: DynamoDBRecord[] };
  /** The failed records, in entries the local poller queued before the destination was a bucket. */
  records?: DynamoDBRecord[];
}

/** The S3 event notification the failure bucket sends the failure queue for each new object. */
export interface FailureNotice {
  Records?: { eventSource?: string; eventName?: string; s3?: { bucket: { name: string }; object: { key: string; size?: number } } }[];
  /** S3 sends `s3:TestEvent` once when the notification is configured. */
  Event?: string;
}

const arrival = (r: DynamoDBRecord) =>
  r.dynamodb?.ApproximateCreationDateTime ? new Date(r.dynamodb.ApproximateCreationDateTime * 1000).toISOString() : undefined;

/** The failure-destination object for records that exhausted their retries: Lambda's invocation record with the payload. */
export function streamFailureObject(
  records: DynamoDBRecord[],
  info: { shardId: string; streamArn: string; functionArn: string; attempts: number; error: unknown },
): StreamFailure {
  return {
    version: '1.0',
    timestamp: new Date().toISOString(),
    requestContext: {
      requestId: crypto.randomUUID(),
      functionArn: info.functionArn,
      condition: 'RetryAttemptsExhausted',
      approximateInvokeCount: info.attempts,
    },
    responseContext: {
      statusCode: 200,
      executedVersion: '$LATEST',
      ...(info.error instanceof Error ? { functionError: info.error.message } : {}),
    },
    DDBStreamBatchInfo: {
      shardId: info.shardId,
      startSequenceNumber: records[0]?.dynamodb?.SequenceNumber ?? '',
      endSequenceNumber: records.at(-1)?.dynamodb?.SequenceNumber ?? '',
      approximateArrivalOfFirstRecord: arrival(records[0]),
      approximateArrivalOfLastRecord: arrival(records.at(-1)!),
      batchSize: records.length,
      streamArn: info.streamArn,
    },
    payload: JSON.stringify({ Records: records }),
  };
}

/** Where Lambda puts an on-failure object: aws/lambda/<mapping>/<shard>/YYYY/MM/DD/<time>-<uuid>. */
export function streamFailureKey(mappingId: string, shardId: string, at = new Date()): string {
  const iso = at.toISOString();
  const day = iso.slice(0, 10).replaceAll('-', '/');
  return `aws/lambda/${mappingId}/${shardId}/${day}/${iso.slice(0, 19).replaceAll(':', '.')}-${crypto.randomUUID()}`;
}

/** The S3 notification of a new failure object, as the failure queue receives it. */
export function failureNoticeBody(bucket: string, key: string, size: number): string {
  const notice: FailureNotice = {
    Records: [{ eventSource: 'aws:s3', eventName: 'ObjectCreated:Put', s3: { bucket: { name: bucket }, object: { key, size } } }],
  };
  return encodeQueueBody(notice);
}

/** The failed records: from the entry when it carries them, else re-read from the stream by position. */
export async function recordsOf(failure: StreamFailure): Promise<DynamoDBRecord[]> {
  const payload = typeof failure.payload === 'string' ? (JSON.parse(failure.payload) as { Records?: DynamoDBRecord[] }) : failure.payload;
  if (payload?.Records?.length) return payload.Records;
  if (failure.records?.length) return failure.records;
  const info = failure.DDBStreamBatchInfo;
  if (!info?.shardId || !info.startSequenceNumber) throw new Error('failure entry names no stream records');
  return readStreamRecords(info);
}

let s3: S3Client | undefined;
const objects = () =>
  (s3 ??= new S3Client({
    region: config().region,
    ...(config().s3Endpoint ? { endpoint: config().s3Endpoint, forcePathStyle: true } : {}),
  }));

async function forward(failure: StreamFailure): Promise<number> {
  const records = await recordsOf(failure);
  const res = await forwardChanges({ Records: records });
  if (res.batchItemFailures.length) throw new Error(`record ${res.batchItemFailures[0].itemIdentifier} still fails`);
  log.info('stream records replayed', { eventIds: records.map((r) => r.eventID) });
  return records.length;
}

/** The failure objects a queue entry names (none for S3's test event). */
export function noticedObjects(body: string): { bucket: string; key: string }[] | undefined {
  const notice = decodeQueueBody<FailureNotice & Partial<StreamFailure>>(body);
  if (notice.Event === 's3:TestEvent') return [];
  if (!Array.isArray(notice.Records) || !notice.Records[0]?.s3) return undefined;
  // Keys arrive URL-encoded, spaces as '+'.
  return notice.Records.flatMap((r) =>
    r.s3 ? [{ bucket: r.s3.bucket.name, key: decodeURIComponent(r.s3.object.key.replace(/\+/g, ' ')) }] : [],
  );
}

/** Reads a failure object from the destination bucket. */
export async function readFailureObject(bucket: string, key: string): Promise<StreamFailure> {
  const out = await objects().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return JSON.parse(await out.Body!.transformToString('utf8')) as StreamFailure;
}

/**
 * Forwards the records of a failure-queue entry to the events queue again (the object it names, or the
 * entry itself when it is an older one), then deletes the object; throws while any of them still fails.
 */
export async function replayStreamFailure(body: string): Promise<{ records: number }> {
  const named = noticedObjects(body);
  if (!named) return { records: await forward(decodeQueueBody<StreamFailure>(body)) };
  let records = 0;
  for (const { bucket, key } of named) {
    let failure: StreamFailure;
    try {
      failure = await readFailureObject(bucket, key);
    } catch (err) {
      // Replayed and deleted by an earlier run whose queue entry came back: nothing left to do.
      if ((err as { name?: string }).name === 'NoSuchKey') {
        log.warn('stream failure object already gone (replayed before?)', { bucket, key });
        continue;
      }
      throw err;
    }
    records += await forward(failure);
    await objects().send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  }
  return { records };
}
