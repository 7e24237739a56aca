// Time arithmetic of report aggregates (pure). Figures are kept per UTC day (one item) and per UTC hour
// with four quarter-hour counters (one item), so a period in any timezone Chatwoot accepts (whole,
// half and three-quarter hour offsets: India +5:30, Nepal +5:45, Chatham +12:45, Newfoundland −3:30)
// starts on a quarter-hour boundary of UTC. A sum over [a, b) is F(b) − F(a) with
// F(t) = whole UTC days before t's day + t's day up to t's time of day ("head").

export const QUARTER = 900;
export const HOUR = 3_600;
export const DAY = 86_400;

export type GroupBy = 'day' | 'week' | 'month' | 'year';
export const GROUP_BYS: readonly GroupBy[] = ['day', 'week', 'month', 'year'];

/** The figures an aggregate item holds (short attribute names: they are stored on every item). */
export const FIELDS = [
  'cc', // conversations created
  'im', // incoming messages
  'om', // outgoing messages
  'fr_n', 'fr_s', 'fr_b', // first responses: count, seconds, business seconds
  'rs_n', 'rs_s', 'rs_b', // resolutions
  'rt_n', 'rt_s', 'rt_b', // reply times
  'br', // bot resolutions
  'bh', // bot handoffs
  'st_open', 'st_resolved', 'st_pending', 'st_snoozed', // conversations created in the bucket, by current status (channel summary)
] as const;
export type Field = (typeof FIELDS)[number];
export type Figures = Partial<Record<Field, number>>;

export function addFigures(into: Figures, from: Figures, sign = 1): Figures {
  for (const [k, v] of Object.entries(from) as [Field, number][]) into[k] = (into[k] ?? 0) + sign * v;
  return into;
}

/** 'YYYYMMDD' of the UTC day containing t. */
export function dayKey(t: number): string {
  return new Date(Math.floor(t / DAY) * DAY * 1000).toISOString().slice(0, 10).replaceAll('-', '');
}

export const dayStart = (t: number) => Math.floor(t / DAY) * DAY;
export const hourOfDay = (t: number) => Math.floor((t - dayStart(t)) / HOUR);
export const quarterOfHour = (t: number) => Math.floor((t % HOUR) / QUARTER);

/** Hour-item attribute of a figure in quarter q. */
export const quarterField = (f: Field, q: number) => `${f}_${q}`;

/**
 * Sum of an hour item's quarters before `quarters` (0..4). `hour` holds `<field>_<q>` attributes.
 */
export function hourHead(hour: Record<string, unknown> | undefined, quarters: number): Figures {
  const out: Figures = {};
  if (!hour) return out;
  for (const f of FIELDS) {
    for (let q = 0; q < quarters; q++) {
      const v = hour[quarterField(f, q)];
      if (typeof v === 'number') out[f] = (out[f] ?? 0) + v;
    }
  }
  return out;
}

/**
 * Which hour items give a day's head up to `tod` (seconds into the UTC day, a multiple of 900): either
 * the hours before it (head) or the hours from it (tail, subtracted from the day total), whichever is
 * fewer, so at most 12 full hours and one partial one are read.
 */
export function headPlan(tod: number): { mode: 'head' | 'tail'; hours: number[]; partialHour: number; partialQuarters: number } {
  const h = Math.floor(tod / HOUR);
  const q = Math.floor((tod % HOUR) / QUARTER);
  if (tod <= DAY / 2) return { mode: 'head', hours: range(0, h), partialHour: h, partialQuarters: q };
  return { mode: 'tail', hours: range(h + 1, 24), partialHour: h, partialQuarters: q };
}

const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a) }, (_, i) => a + i);

/** Offsets (hours) Chatwoot's `timezone_offset` may carry: quarter hours from −12 to +14. */
export function offsetSeconds(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return 0;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < -12 || n > 14 || Math.round(n * 4) !== n * 4) return undefined;
  return Math.round(n * HOUR);
}

/** Start (UTC instant) of the local period containing t, for a fixed offset. Weeks start on Sunday (groupdate's default). */
export function periodStart(t: number, group: GroupBy, offset: number): number {
  const local = new Date((t + offset) * 1000);
  let start: number;
  switch (group) {
    case 'day':
      start = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate());
      break;
    case 'week':
      start = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() - local.getUTCDay());
      break;
    case 'month':
      start = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), 1);
      break;
    case 'year':
      start = Date.UTC(local.getUTCFullYear(), 0, 1);
      break;
  }
  return start / 1000 - offset;
}

export function nextPeriod(start: number, group: GroupBy, offset: number): number {
  const local = new Date((start + offset) * 1000);
  const y = local.getUTCFullYear();
  const m = local.getUTCMonth();
  const d = local.getUTCDate();
  const next =
    group === 'day' ? Date.UTC(y, m, d + 1) : group === 'week' ? Date.UTC(y, m, d + 7) : group === 'month' ? Date.UTC(y, m + 1, 1) : Date.UTC(y + 1, 0, 1);
  return next / 1000 - offset;
}

export interface Period {
  /** The period's label: its local start (as Chatwoot's timestamps). */
  timestamp: number;
  from: number;
  to: number;
}

/** The periods of [since, until), each clipped to the range. */
export function periodsOf(since: number, until: number, group: GroupBy, offset: number): Period[] {
  const out: Period[] = [];
  for (let s = periodStart(since, group, offset); s < until; s = nextPeriod(s, group, offset)) {
    const e = nextPeriod(s, group, offset);
    out.push({ timestamp: s, from: Math.max(s, since), to: Math.min(e, until) });
  }
  return out;
}

export const floorQuarter = (t: number) => Math.floor(t / QUARTER) * QUARTER;
export const ceilQuarter = (t: number) => Math.ceil(t / QUARTER) * QUARTER;
