import * as keys from '#shared/db/keys.ts';
import { putListingItem, queryListing, rewriteListingItem } from '#shared/db/repositories/report-listing.ts';
import { readPendingReports } from '#shared/db/repositories/report-logs.ts';
import { listReportingEvents } from '#shared/db/repositories/reports.ts';
import type { ReportLog } from '#shared/model/report-logs.ts';
import { decodeRemoved, decodeReportingEvent, listingChunks, listingHour, mergeListing } from '#shared/model/reporting-event-listing.ts';
import type { ReportingEventRecord } from '#shared/model/reports.ts';

// The account's reporting events listing (docs/reports.md#how-the-figures-are-kept): a reply's reporting event
// is carried by its batch's log, and the fold that folds the log writes the account's listing items: one per
// UTC hour of the reporting events it folded (keyed by the fold, so a retried fold puts the same items, if
// new). `GET reporting_events` reads the listing items of its range, the pending logs' events and the index
// copies written before the listing (AP205), each event once. A deleted conversation's reporting events ride
// in its deletion's log as removed: reads leave them out while the log is pending, and the fold that folds it
// leaves them out of its items and rewrites the earlier items holding them.

/** Clamped to what a Date can show (the listing's hours). */
const hourOf = (t: number) => listingHour(Math.min(Math.max(0, t), 99_999_999_999));

/** A fold's listing items: the reporting events of its logs, and the removals applied. Returns the items written. */
export async function foldReportingEvents(accountId: number, logs: ReportLog[], end: string): Promise<number> {
  const events = logs.flatMap((l) => (l.events ?? []).map((e) => decodeReportingEvent(accountId, e)));
  const removed = logs.flatMap((l) => (l.removed ?? []).map(decodeRemoved));
  const gone = new Set(removed.map((r) => r.id));
  let written = 0;
  for (const chunk of listingChunks(events, gone))
    if (await putListingItem(accountId, keys.reportingEventsListing(accountId, chunk.hour, end, chunk.n), chunk.events)) written++;
  // Earlier folds' items holding a removed event (folds run one at a time, so none is being written now).
  for (const hour of new Set(removed.map((r) => hourOf(r.created_at)))) {
    for (const item of await queryListing(accountId, hour, hour, true)) {
      const kept = item.events.filter((e) => !gone.has(decodeReportingEvent(accountId, e).id));
      if (kept.length === item.events.length) continue;
      await rewriteListingItem(accountId, { key: item.key, events: kept });
      written++;
    }
  }
  return written;
}

/**
 * AP371, AP372, AP211, AP205: the account's reporting events created in [since, until], newest first. The
 * pending logs are read first: a fold finishing meanwhile has written its items before it moved the
 * watermark, so an event is in one source at least.
 */
export async function listAccountEvents(accountId: number, since: number, until: number): Promise<ReportingEventRecord[]> {
  const pending = await readPendingReports(accountId);
  const [items, indexed] = await Promise.all([
    queryListing(accountId, hourOf(since), hourOf(until)),
    listReportingEvents(accountId, since, until),
  ]);
  const folded = items.flatMap((i) => i.events.map((e) => decodeReportingEvent(accountId, e)));
  const logged = pending.logs.flatMap((l) => (l.events ?? []).map((e) => decodeReportingEvent(accountId, e)));
  const removed = new Set(pending.logs.flatMap((l) => (l.removed ?? []).map((r) => decodeRemoved(r).id)));
  return mergeListing([folded, logged, indexed], removed, since, until);
}
