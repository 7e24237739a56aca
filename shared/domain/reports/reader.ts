import { getReportHours, queryReportDays, queryReportHourOfDay, readPendingReports } from '#shared/db/repositories/reports.ts';
import type { PendingReports } from '#shared/model/report-logs.ts';
import { addDayHead, addFigures, DAY, dayKey, dayStart, headPlan, type Figures } from '#shared/model/report-buckets.ts';

// Sums of a series over instants: F(t) = the series' figures from the first day read up to t, so a
// period [a, b) is F(b) − F(a). Reads: one Query of day items for the whole span, and the hour items of
// the days a boundary cuts (those with a day item): a BatchGet when few days far apart are cut, else one
// Query per hour of day (at most 13, whatever the span), since Chatwoot's day/week/month periods in one
// offset all cut days at one time.

const BATCH_DAYS = 6;

const inFlight = new Map<number, Promise<PendingReports>>();

/**
 * The account's pending report logs (the fold's watermark and the logs past it: a read and a Query), which
 * every report read adds to the aggregates. Reads of one account at the same moment (a route's series, read
 * together) share one.
 */
export function pendingReports(accountId: number): Promise<PendingReports> {
  const running = inFlight.get(accountId);
  if (running) return running;
  const read = readPendingReports(accountId).finally(() => inFlight.delete(accountId));
  inFlight.set(accountId, read);
  return read;
}

/** F at each boundary (quarter-hour aligned instants), for one series. */
export async function cumulativeAt(accountId: number, series: string, boundaries: number[]): Promise<Figures[]> {
  if (!boundaries.length) return [];
  const first = dayStart(Math.min(...boundaries));
  const last = dayStart(Math.max(...boundaries));
  const pending = await pendingReports(accountId);
  const days = await queryReportDays(accountId, series, dayKey(first), dayKey(last), pending);

  // Hour items wanted: (hour, day) of every cut day that has figures. A day item is written with every
  // hour item of its day (the same additions, the fold, the rebuild and the deletion's negation alike), so a
  // day without one (or pending figures) has no hour items either: reading them would cost a read unit apiece
  // for nothing.
  const cuts = boundaries.filter((t) => t % DAY !== 0 && days.has(dayKey(dayStart(t))));
  const byHour = new Map<number, Set<number>>();
  for (const t of cuts) {
    const plan = headPlan(t - dayStart(t));
    for (const h of [...plan.hours, plan.partialHour]) {
      if (!byHour.has(h)) byHour.set(h, new Set());
      byHour.get(h)!.add(dayStart(t));
    }
  }
  const hours = new Map<string, Record<string, unknown> | undefined>();
  const batch: { hour: number; day: string }[] = [];
  await Promise.all(
    [...byHour].map(async ([hour, daySet]) => {
      const ds = [...daySet];
      // A BatchGet bills each item half a read unit; a Query bills the bytes of every day in its range (an
      // hour item is ≤ ~1 KB, four to a half unit): so one Query per hour once the cut days are many or
      // close together, one BatchGet for them all when they are one day or a few far apart.
      const span = (Math.max(...ds) - Math.min(...ds)) / DAY + 1;
      if (ds.length === 1 || (ds.length <= BATCH_DAYS && span > 4 * ds.length)) {
        for (const d of ds) batch.push({ hour, day: dayKey(d) });
        return;
      }
      const found = await queryReportHourOfDay(accountId, series, hour, dayKey(Math.min(...ds)), dayKey(Math.max(...ds)), pending);
      for (const [day, item] of found) hours.set(`${hour}|${day}`, item);
    }),
  );
  if (batch.length) for (const [k, item] of await getReportHours(accountId, series, batch, pending)) hours.set(k, item);

  // Day totals before each day, from the first day.
  const before = new Map<number, Figures>();
  let running: Figures = {};
  for (let d = first; d <= last; d += DAY) {
    before.set(d, { ...running });
    running = addFigures({ ...running }, days.get(dayKey(d)) ?? {});
  }

  return boundaries.map((t) => {
    const d = dayStart(t);
    const out = { ...before.get(d)! };
    if (t === d) return out;
    return addDayHead(out, t - d, days.get(dayKey(d)) ?? {}, (h) => hours.get(`${h}|${dayKey(d)}`));
  });
}

/** The figures of each interval [boundaries[i], boundaries[i+1]). */
export async function sumsBetween(accountId: number, series: string, boundaries: number[]): Promise<Figures[]> {
  const f = await cumulativeAt(accountId, series, boundaries);
  return f.slice(1).map((b, i) => addFigures({ ...b }, f[i]!, -1));
}
