import { DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { config } from '../config.ts';
import { log } from '../log.ts';
import { forwardChanges } from './forward.ts';
import { decodeQueueBody, encodeQueueBody } from './queue-text.ts';
import { toLambdaRecord } from './stream-record.ts';

// The stream's failure destination: what one entry says, and how it is replayed. Deployed, Lambda writes
// its invocation record there, which names the failed record by shard position (DDBStreamBatchInfo); the
// local poller writes the same shape and adds the records themselves. A replay forwards the records
// again, read from the entry or, failing that, from the stream (which keeps them 24 hours).

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
  /** The failed records as the function received them (local runtime; Lambda leaves them out). */
  records?: DynamoDBRecord[];
}

const MAX_BODY_BYTES = 240 * 1024;

const arrival = (r: DynamoDBRecord) =>
  r.dynamodb?.ApproximateCreationDateTime ? new Date(r.dynamodb.ApproximateCreationDateTime * 1000).toISOString() : undefined;

/** The failure-destination entry for records that exhausted their retries, as a queue body. */
export function streamFailureBody(
  records: DynamoDBRecord[],
  info: { shardId: string; streamArn: string; functionArn: string; attempts: number; error: unknown },
): string {
  const failure: StreamFailure = {
    version: '1.0',
    timestamp: new Date().toISOString(),
    requestContext: {
      requestId: crypto.randomUUID(),
      functionArn: info.functionArn,
      condition: 'RetryAttemptsExhausted',
      approximateInvokeCount: info.attempts,
    },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', ...(info.error instanceof Error ? { functionError: info.error.message } : {}) },
    DDBStreamBatchInfo: {
      shardId: info.shardId,
      startSequenceNumber: records[0]?.dynamodb?.SequenceNumber ?? '',
      endSequenceNumber: records.at(-1)?.dynamodb?.SequenceNumber ?? '',
      approximateArrivalOfFirstRecord: arrival(records[0]),
      approximateArrivalOfLastRecord: arrival(records.at(-1)!),
      batchSize: records.length,
      streamArn: info.streamArn,
    },
    records,
  };
  const body = encodeQueueBody(failure);
  // Too large for a queue message: the position alone, and the replay re-reads the stream.
  return Buffer.byteLength(body) <= MAX_BODY_BYTES ? body : encodeQueueBody({ ...failure, records: undefined });
}

const seq = (s: string | undefined) => BigInt(s || '0');

let streams: DynamoDBStreamsClient | undefined;

/** The failed records: from the entry when it carries them, else re-read from the stream by position. */
export async function recordsOf(failure: StreamFailure): Promise<DynamoDBRecord[]> {
  if (failure.records?.length) return failure.records;
  const info = failure.DDBStreamBatchInfo;
  if (!info?.shardId || !info.startSequenceNumber) throw new Error('failure entry names no stream records');
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

/** Forwards a failure entry's records to the events queue again; throws while any of them still fails. */
export async function replayStreamFailure(body: string): Promise<{ records: number }> {
  const failure = decodeQueueBody<StreamFailure>(body);
  const records = await recordsOf(failure);
  const res = await forwardChanges({ Records: records });
  if (res.batchItemFailures.length) throw new Error(`record ${res.batchItemFailures[0].itemIdentifier} still fails`);
  log.info('stream records replayed', { eventIds: records.map((r) => r.eventID) });
  return { records: records.length };
}
