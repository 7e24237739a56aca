import { describe, expect, it } from 'vitest';
import {
  decodeRemoved,
  decodeReportingEvent,
  encodeRemoved,
  encodeReportingEvent,
  LISTING_CHUNK,
  listingChunks,
  listingHour,
  mergeListing,
} from '#shared/model/reporting-event-listing.ts';
import type { ReportingEventRecord } from '#shared/model/reports.ts';

// The reporting events listing's pure parts: the compact encoding the logs and listing items carry, a fold's
// items by UTC hour, and the merge of the listing's sources.

const at = Date.UTC(2026, 10, 28, 7, 59, 59) / 1000;
const ev = (id: number, created = at, extra: Partial<ReportingEventRecord> = {}): ReportingEventRecord => ({
  id,
  name: 'reply_time',
  value: 120,
  value_in_business_hours: 37.5,
  account_id: 9,
  inbox_id: 4,
  user_id: 3,
  conversation_id: 12,
  event_start_time: created - 120,
  event_end_time: created,
  created_at: created,
  updated_at: created,
  ...extra,
});

describe('reporting events listing', () => {
  it('encodes an event in a few bytes and decodes it whole', () => {
    const plain = ev(1_234_567);
    expect(encodeReportingEvent(plain)).toBe(`1234567,1,120,37.5,4,3,12,${at - 120},,${at},`);
    expect(decodeReportingEvent(9, encodeReportingEvent(plain))).toEqual(plain);
    const odd = ev(5, at, { name: 'conversation_bot_resolved', user_id: null, event_end_time: at - 1, updated_at: at + 9, value: 0 });
    expect(decodeReportingEvent(9, encodeReportingEvent(odd))).toEqual(odd);
    expect(decodeRemoved(encodeRemoved({ id: 5, created_at: at }))).toEqual({ id: 5, created_at: at });
  });

  it('lists a fold by UTC hour, oldest first, in chunks, without removed or repeated events', () => {
    expect(listingHour(at)).toBe('2026112807');
    expect(listingHour(at + 1)).toBe('2026112808');
    const events = [ev(3, at + 1), ev(2, at), ev(1, at), ev(4, at - 10), ev(2, at)];
    const chunks = listingChunks(events, new Set([4]));
    expect(chunks.map((c) => [c.hour, c.n, c.events.map((e) => Number(e.split(',')[0]))])).toEqual([
      ['2026112807', 0, [1, 2]],
      ['2026112808', 0, [3]],
    ]);
    const many = Array.from({ length: LISTING_CHUNK + 1 }, (_, i) => ev(i + 1, at - i));
    expect(listingChunks(many, new Set()).map((c) => [c.n, c.events.length])).toEqual([
      [0, LISTING_CHUNK],
      [1, 1],
    ]);
  });

  it('merges the sources: each event once, in the range, less the removed, newest first then by id', () => {
    const a = ev(1, at - 100);
    const b = ev(2, at);
    const c = ev(3, at);
    const d = ev(4, at + 100);
    expect(mergeListing([[a, b], [c, b], [d]], new Set(), 0, 99_999_999_999).map((e) => e.id)).toEqual([4, 3, 2, 1]);
    expect(
      mergeListing(
        [
          [a, b],
          [c, d],
        ],
        new Set([3]),
        at - 100,
        at,
      ).map((e) => e.id),
    ).toEqual([2, 1]);
  });
});
