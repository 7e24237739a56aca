import type { WorkingHour } from '#shared/model/inboxes.ts';

// Business time between two instants, as Chatwoot's ReportingEventHelper computes it with the
// business_time gem: only the inbox's open hours on its open weekdays count, read in the inbox's
// timezone (so a DST change moves the hours with the wall clock). No working hours → 0.

export interface WorkingSchedule {
  working_hours_enabled: boolean;
  working_hours: WorkingHour[];
  timezone: string;
}

const DAY = 86_400;
const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatter(tz: string): Intl.DateTimeFormat | null {
  if (!formatters.has(tz)) {
    try {
      formatters.set(
        tz,
        new Intl.DateTimeFormat('en-US', {
          timeZone: tz,
          hourCycle: 'h23',
          year: 'numeric',
          month: 'numeric',
          day: 'numeric',
          hour: 'numeric',
          minute: 'numeric',
          second: 'numeric',
        }),
      );
    } catch {
      formatters.set(tz, null);
    }
  }
  return formatters.get(tz)!;
}

/** Seconds the zone is ahead of UTC at `t` (unix seconds); an unknown zone is UTC. */
export function zoneOffset(tz: string, t: number): number {
  const f = formatter(tz);
  if (!f) return 0;
  const p = Object.fromEntries(f.formatToParts(new Date(t * 1000)).map((x) => [x.type, x.value]));
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second)) / 1000;
  return Math.round(wall - t);
}

/** The instant at which the zone's wall clock shows `localSeconds` (seconds since the epoch, read as a wall time). */
export function wallToInstant(tz: string, localSeconds: number): number {
  const first = localSeconds - zoneOffset(tz, localSeconds);
  const second = localSeconds - zoneOffset(tz, first);
  return second;
}

/** Open interval of a weekday in minutes of the local day, or null when closed. */
function openMinutes(day: WorkingHour | undefined): [number, number] | null {
  if (!day || day.closed_all_day) return null;
  if (day.open_all_day) return [0, 24 * 60];
  if (day.open_hour == null || day.close_hour == null) return null;
  const open = day.open_hour * 60 + (day.open_minutes ?? 0);
  const close = day.close_hour * 60 + (day.close_minutes ?? 0);
  return close > open ? [open, close] : null;
}

/** Longest span looked at, so that a bad timestamp cannot make the pipeline loop for ages. */
const MAX_DAYS = 3_700;

/** Business seconds in [from, to) (unix seconds) for the schedule; 0 when working hours are off or to ≤ from. */
export function businessSeconds(schedule: WorkingSchedule | undefined, from: number, to: number): number {
  if (!schedule?.working_hours_enabled || !(to > from)) return 0;
  const tz = schedule.timezone || 'UTC';
  const byDay = new Map(schedule.working_hours.map((w) => [w.day_of_week, openMinutes(w)]));
  const firstLocalDay = Math.floor((from + zoneOffset(tz, from)) / DAY);
  const lastLocalDay = Math.floor((to + zoneOffset(tz, to)) / DAY);
  let total = 0;
  for (let d = firstLocalDay; d <= lastLocalDay && d - firstLocalDay <= MAX_DAYS; d++) {
    // 1970-01-01 was a Thursday (day_of_week 4, Sunday = 0).
    const hours = byDay.get((((d + 4) % 7) + 7) % 7);
    if (!hours) continue;
    const open = wallToInstant(tz, d * DAY + hours[0] * 60);
    const close = wallToInstant(tz, d * DAY + hours[1] * 60);
    const a = Math.max(open, from);
    const b = Math.min(close, to);
    if (b > a) total += b - a;
  }
  return total;
}

/**
 * The instant at which `seconds` of business time have passed since `from` (the SLA deadlines of a policy that
 * counts only business hours): with working hours off every second counts; a schedule that never opens (or not
 * within MAX_DAYS) has no such instant (null).
 */
export function addBusinessSeconds(schedule: WorkingSchedule | undefined, from: number, seconds: number): number | null {
  if (!schedule?.working_hours_enabled) return from + seconds;
  const tz = schedule.timezone || 'UTC';
  const byDay = new Map(schedule.working_hours.map((w) => [w.day_of_week, openMinutes(w)]));
  const firstLocalDay = Math.floor((from + zoneOffset(tz, from)) / DAY);
  let left = seconds;
  for (let d = firstLocalDay; d - firstLocalDay <= MAX_DAYS; d++) {
    const hours = byDay.get((((d + 4) % 7) + 7) % 7);
    if (!hours) continue;
    const open = Math.max(wallToInstant(tz, d * DAY + hours[0] * 60), from);
    const close = wallToInstant(tz, d * DAY + hours[1] * 60);
    if (close <= open) continue;
    if (open + left <= close) return open + left;
    left -= close - open;
  }
  return null;
}
