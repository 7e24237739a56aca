import { REPORTING_EVENT_NAMES, type ReportingEventRecord } from './reports.ts';

// The account's reporting events listing (pure; docs/reports.md#how-the-figures-are-kept): a reporting event is
// carried by its batch's log and, once folded, by the fold's listing item of its UTC hour, in a compact form:
// one string of its numbers, ~50–70 bytes where the record's attributes take ~250.

/** A reporting event removed from the listing (its conversation was deleted): its id and creation time. */
export interface RemovedEvent {
  id: number;
  created_at: number;
}

const num = (s: string | undefined) => Number(s);

/**
 * `id,name,value,business value,inbox,user,conversation,start,end,created,updated` (name by its index; user empty
 * for none; end and updated empty when they equal created, as the pipeline writes them). The account is the
 * item's.
 */
export function encodeReportingEvent(e: ReportingEventRecord): string {
  const same = (t: number) => (t === e.created_at ? '' : t);
  return [
    e.id,
    REPORTING_EVENT_NAMES.indexOf(e.name),
    e.value,
    e.value_in_business_hours,
    e.inbox_id,
    e.user_id ?? '',
    e.conversation_id,
    e.event_start_time,
    same(e.event_end_time),
    e.created_at,
    same(e.updated_at),
  ].join(',');
}

export function decodeReportingEvent(accountId: number, s: string): ReportingEventRecord {
  const [id, name, value, business, inbox, user, conversation, start, end, created, updated] = s.split(',');
  const createdAt = num(created);
  return {
    id: num(id),
    name: REPORTING_EVENT_NAMES[num(name)]!,
    value: num(value),
    value_in_business_hours: num(business),
    account_id: accountId,
    inbox_id: num(inbox),
    user_id: user ? num(user) : null,
    conversation_id: num(conversation),
    event_start_time: num(start),
    event_end_time: end ? num(end) : createdAt,
    created_at: createdAt,
    updated_at: updated ? num(updated) : createdAt,
  };
}

/** `id,created` of a removed event. */
export const encodeRemoved = (e: RemovedEvent) => `${e.id},${e.created_at}`;
export function decodeRemoved(s: string): RemovedEvent {
  const [id, created] = s.split(',');
  return { id: num(id), created_at: num(created) };
}

/** The UTC hour (`yyyymmddhh`) a reporting event created at `t` (unix seconds) is listed under. */
export const listingHour = (t: number) => new Date(t * 1000).toISOString().slice(0, 13).replace(/[-T]/g, '');

/** At most this many reporting events a listing item (~70 KB: far below DynamoDB's 400 KB an item). */
export const LISTING_CHUNK = 1000;

/**
 * A fold's listing items: its logs' reporting events less the removed ones (a conversation deleted in the same
 * logs), by UTC hour, in chunks of LISTING_CHUNK, each chunk oldest first; deterministic, so a retried fold
 * makes the same items.
 */
export function listingChunks(events: ReportingEventRecord[], removed: Set<number>): { hour: string; n: number; events: string[] }[] {
  const byHour = new Map<string, ReportingEventRecord[]>();
  const seen = new Set<number>();
  for (const e of events) {
    if (removed.has(e.id) || seen.has(e.id)) continue;
    seen.add(e.id);
    const hour = listingHour(e.created_at);
    byHour.set(hour, [...(byHour.get(hour) ?? []), e]);
  }
  const out: { hour: string; n: number; events: string[] }[] = [];
  for (const [hour, list] of [...byHour].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    list.sort(byCreation);
    for (let i = 0; i * LISTING_CHUNK < list.length; i++)
      out.push({ hour, n: i, events: list.slice(i * LISTING_CHUNK, (i + 1) * LISTING_CHUNK).map(encodeReportingEvent) });
  }
  return out;
}

/** Oldest first: creation time, then id. */
export const byCreation = (a: ReportingEventRecord, b: ReportingEventRecord) => a.created_at - b.created_at || a.id - b.id;

/**
 * The listing of [since, until], newest first: every source's events (folded listing items, pending logs, the
 * old index), each once by id, less the removed ones.
 */
export function mergeListing(
  sources: ReportingEventRecord[][],
  removed: Set<number>,
  since: number,
  until: number,
): ReportingEventRecord[] {
  const byId = new Map<number, ReportingEventRecord>();
  for (const list of sources)
    for (const e of list) if (!removed.has(e.id) && e.created_at >= since && e.created_at <= until && !byId.has(e.id)) byId.set(e.id, e);
  return [...byId.values()].sort((a, b) => byCreation(b, a));
}
