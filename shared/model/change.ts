import { AUDITED_TYPES } from './audit.ts';

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
 * The item types whose changes can mean an event (see shared/domain/events/domain-events.ts). Every other item (counters,
 * sentinels, links, listings, tokens) stays off the events queue; the deployed stream filter uses the
 * same list, so those records never even invoke the stream function.
 */
export const EVENT_SOURCE_TYPES = [
  'conversation',
  'message',
  'contact',
  'inbox',
  'event_signal',
  'notification',
  'mail',
  'purge_job',
  'contact_import',
];

/** What invokes the stream function: the event sources, and the audited records (its audit stage, docs/audit.md). */
export const STREAM_SOURCE_TYPES = [...new Set([...EVENT_SOURCE_TYPES, ...Object.keys(AUDITED_TYPES)])];

/** Mail requests (the outbox, shared/domain/mail) travel the same way; only their insert means a mail. */
export const isMailRequest = (change: Pick<Change, 'type' | 'action'>) => change.type === 'mail' && change.action === 'INSERT';

/**
 * Purge jobs (shared/domain/purge) too: the job's insert brings its first chunk to the dispatcher, and each
 * chunk's progress (a change of the job item) the next one.
 */
export const isPurgeJob = (change: Pick<Change, 'type' | 'action'>) => change.type === 'purge_job' && change.action !== 'REMOVE';

/**
 * Contacts imports (shared/domain/contacts/import.ts) too: the job's insert brings its first chunk of rows to the
 * dispatcher, and each chunk's recorded progress the next one (or the result, after the last).
 */
export const isContactImport = (change: Pick<Change, 'type' | 'action'>) => change.type === 'contact_import' && change.action !== 'REMOVE';
