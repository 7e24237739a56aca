import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { eventsOf } from './domain-events.ts';
import { encodeQueueBody } from './queue-text.ts';

/** One item change from the table's stream, as it travels on the events queue. */
export interface Change {
  /** The stream record's eventID: stable across retries, so it doubles as the event id. */
  id: string;
  action: 'INSERT' | 'MODIFY' | 'REMOVE';
  /** Entity type of the item (its `type` attribute). */
  type: string;
  pk: string;
  sk: string;
  /** Seconds since the epoch, from the stream record. */
  at: number;
  newImage?: Record<string, unknown>;
  oldImage?: Record<string, unknown>;
  /** Set when the images were too large for a queue message; the consumer re-reads the item. */
  truncated?: boolean;
}

/**
 * The item types whose changes can mean an event (see domain-events.ts). Every other item (counters,
 * sentinels, links, listings, tokens) stays off the events queue; the deployed stream filter uses the
 * same list, so those records never even invoke the stream function.
 */
export const EVENT_SOURCE_TYPES = ['conversation', 'message', 'contact', 'inbox', 'event_signal', 'notification', 'mail', 'purge_job'];

/** Mail requests (the outbox, shared/domain/mail) travel the same way; only their insert means a mail. */
export const isMailRequest = (change: Pick<Change, 'type' | 'action'>) => change.type === 'mail' && change.action === 'INSERT';

/**
 * Purge jobs (shared/domain/purge) too: the job's insert brings its first chunk to the dispatcher, and each
 * chunk's progress (a change of the job item) the next one.
 */
export const isPurgeJob = (change: Pick<Change, 'type' | 'action'>) => change.type === 'purge_job' && change.action !== 'REMOVE';

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

/**
 * The change the forwarder puts on the events queue, or nothing for a change that means no event: a
 * type that never does, or a change that announces nothing (a conversation's new last message, seen
 * times, a contact touched within the same second). One chat message is then one queue message.
 */
export function changeOf(record: DynamoDBRecord): Change | undefined {
  const change = recordChange(record);
  if (!EVENT_SOURCE_TYPES.includes(change.type)) return undefined;
  if (change.type === 'mail') return isMailRequest(change) ? change : undefined;
  if (change.type === 'purge_job') return isPurgeJob(change) ? change : undefined;
  return eventsOf(change).length ? change : undefined;
}

const MAX_MESSAGE_BYTES = 240 * 1024;

/** The change as an events-queue body (escaped for SQS, measured after escaping). */
export function serializeChange(change: Change): string {
  const body = encodeQueueBody(change);
  if (Buffer.byteLength(body) <= MAX_MESSAGE_BYTES) return body;
  const { newImage: _n, oldImage: _o, ...rest } = change;
  return encodeQueueBody({ ...rest, truncated: true });
}
