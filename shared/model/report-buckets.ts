// Time arithmetic of report aggregates (pure). Figures are kept per UTC day (one item) and in quarter-hour
// counters: per six UTC hours and field group (a block item; older accounts: per UTC hour, every figure in
// one hour item), so a period in any timezone Chatwoot accepts (whole,
// half and three-quarter hour offsets: India +5:30, Nepal +5:45, Chatham +12:45, Newfoundland −3:30)
// starts on a quarter-hour boundary of UTC. A sum over [a, b) is F(b) − F(a) with
// F(t) = whole UTC days before t's day + t's day up to t's time of day ("head").

export const QUARTER = 900;
export const HOUR = 3_600;
export const DAY = 86_400;
/**
 * Six hours: accounts with `report_blocks` keep, instead of one hour item per UTC hour holding every
 * figure, one block item per six UTC hours and field group (24 quarter-hour counters of the group's
 * fields), so a day cut reads the one group a route needs, in at most two items per group.
 */
export const BLOCK = 6 * HOUR;

export type GroupBy = 'day' | 'week' | 'month' | 'year';
export const GROUP_BYS: readonly GroupBy[] = ['day', 'week', 'month', 'year'];

/** The figures an aggregate item holds (short attribute names: they are stored on every item). */
export const FIELDS = [
  'cc', // conversations created
  'im', // incoming messages
  'om', // outgoing messages
  'fr_n',
  'fr_s',
  'fr_b', // first responses: count, seconds, business seconds
  'rs_n',
  'rs_s',
  'rs_b', // resolutions
  'rt_n',
  'rt_s',
  'rt_b', // reply times
  'br', // bot resolutions
  'bh', // bot handoffs
  'st_open',
  'st_resolved',
  'st_pending',
  'st_snoozed', // conversations created in the bucket, by current status (channel summary)
  'cs', // CSAT surveys sent
  'c1',
  'c2',
  'c3',
  'c4',
  'c5', // CSAT responses by rating, at their first answer (a changed rating moves between them)
  'fd0',
  'fd1',
  'fd2',
  'fd3',
  'fd4', // first responses by time taken (FIRST_RESPONSE_BUCKETS), on inbox series only
] as const;
/**
 * A label series' conversations created in the bucket, by inbox (`li<inbox id>`): the inbox × label
 * matrix. Keyed fields: an item holds only the inboxes it has seen.
 */
export type InboxField = `li${number}`;
export type Field = (typeof FIELDS)[number] | InboxField;
export type Figures = Partial<Record<Field, number>>;

const INBOX_FIELD = /^li\d+$/;
const FIXED = new Set<string>(FIELDS);
/** Whether an item attribute is a figure (a fixed field, or a keyed one). */
export const isField = (name: string): name is Field => FIXED.has(name) || INBOX_FIELD.test(name);
export const inboxField = (inboxId: number): InboxField => `li${inboxId}`;

/**
 * Field groups of block items (what routes read together): counts (`cc im om br bh cs` and the keyed
 * `li<inbox>`, which ride with a label's `cc`), first responses (`fr_*`, `fd*`), resolutions (`rs_*`),
 * reply times (`rt_*`), statuses (`st_*`) and CSAT ratings (`c1`–`c5`). One event touches at most two
 * groups of a series (a first response or a bot resolution with its resolution), so a conversation's
 * 20 labels keep an event's transaction under 100 items.
 */
export const FIELD_GROUPS = ['n', 'f', 'r', 't', 's', 'c'] as const;
export type FieldGroup = (typeof FIELD_GROUPS)[number];
const GROUP_OF: Record<string, FieldGroup> = { fr: 'f', fd: 'f', rs: 'r', rt: 't', st: 's', c1: 'c', c2: 'c', c3: 'c', c4: 'c', c5: 'c' };
/** The group of a field (by its first two letters: every other field is a count). */
export const fieldGroup = (f: Field): FieldGroup => GROUP_OF[f.slice(0, 2)] ?? 'n';
/** The groups that hold some figures. */
export const groupsOf = (fields: readonly Field[]): FieldGroup[] => [...new Set(fields.map(fieldGroup))];
/** The figures of the given groups only. */
export function pickGroups(f: Figures, groups: readonly FieldGroup[]): Figures {
  const out: Figures = {};
  for (const [k, v] of Object.entries(f) as [Field, number][]) if (groups.includes(fieldGroup(k))) out[k] = v;
  return out;
}

/**
 * Groups of the grouped items the per-row routes read (one item per account, family of series, group and UTC
 * day holding every member's figures: docs/reports.md): what those routes read together. `a` the summary row's
 * counts (`cc fr_n rs_n rt_n`), `s` its seconds (`fr_s rs_s rt_s`) and `b` its business seconds (`fr_b rs_b
 * rt_b`, read instead of `s` with `business_hours`), `m` messages (`im om`), `x` the rest (bot counts, CSAT,
 * statuses, `fd*`, `li*`).
 */
export const MEMBER_GROUPS = ['a', 's', 'b', 'm', 'x'] as const;
export type MemberGroup = (typeof MEMBER_GROUPS)[number];
const MEMBER_GROUP_OF: Record<string, MemberGroup> = {
  cc: 'a',
  fr_n: 'a',
  rs_n: 'a',
  rt_n: 'a',
  fr_s: 's',
  rs_s: 's',
  rt_s: 's',
  fr_b: 'b',
  rs_b: 'b',
  rt_b: 'b',
  im: 'm',
  om: 'm',
};
export const memberGroup = (f: Field): MemberGroup => MEMBER_GROUP_OF[f] ?? 'x';
/** The member groups that hold some figures. */
export const memberGroupsOf = (fields: readonly Field[]): MemberGroup[] => [...new Set(fields.map(memberGroup))];
/** A grouped item's attribute: a member's figure (or, in a block item, its quarter counter `<field>_<q>`). */
export const memberAttr = (member: string, attr: string) => `${member}|${attr}`;
/**
 * A fold's addition to an aggregate item too large for one update (DynamoDB: 4 KB an expression) goes as one
 * update per bucket, each marked `fw_<bucket>` (docs/reports.md): the bucket of a grouped item's member, or of a
 * series item's figure (its field, every quarter counter of it alike).
 */
export const MEMBER_BUCKETS = 256;
export function memberBucket(member: string): number {
  let h = 0;
  for (let i = 0; i < member.length; i++) h = (h * 31 + member.charCodeAt(i)) >>> 0;
  return h % MEMBER_BUCKETS;
}
/** A grouped item's fold mark for one member: the item's `fw` or its member bucket's, whichever is later. */
export function memberFoldMark(item: Record<string, unknown> | undefined, member: string): string | undefined {
  const whole = typeof item?.fw === 'string' ? item.fw : undefined;
  const bucket = item?.[`fw_${memberBucket(member)}`];
  return typeof bucket === 'string' && (!whole || bucket > whole) ? bucket : whole;
}
/** The member and the figure (or quarter counter) of a grouped item's attribute; undefined for any other attribute. */
export function splitMemberAttr(name: string): { member: string; attr: string } | undefined {
  const i = name.lastIndexOf('|');
  return i > 0 ? { member: name.slice(0, i), attr: name.slice(i + 1) } : undefined;
}

/** First-response buckets (Chatwoot's FirstResponseTimeDistributionBuilder): upper bounds in seconds, and labels. */
export const FIRST_RESPONSE_BUCKETS = [
  { field: 'fd0', below: 3_600, label: '0-1h' },
  { field: 'fd1', below: 14_400, label: '1-4h' },
  { field: 'fd2', below: 28_800, label: '4-8h' },
  { field: 'fd3', below: 86_400, label: '8-24h' },
  { field: 'fd4', below: Infinity, label: '24h+' },
] as const;
export const firstResponseBucket = (seconds: number) => FIRST_RESPONSE_BUCKETS.find((b) => seconds < b.below)!.field;

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
/** The six-hour block (0–3) of the UTC day, and the quarter (0–23) within it. */
export const blockOfDay = (t: number) => Math.floor((t - dayStart(t)) / BLOCK);
export const quarterOfBlock = (t: number) => Math.floor((t % BLOCK) / QUARTER);

const QUARTER_ATTR = /^(.+)_(\d{1,2})$/;

/** Hour- or block-item attribute of a figure in quarter q (of the hour, or of the block). */
export const quarterField = (f: Field, q: number) => `${f}_${q}`;

/**
 * Sum of an hour (or block) item's quarters before `quarters` (0..4, or 0..24 for a block). The item
 * holds `<field>_<q>` attributes.
 */
export function hourHead(hour: Record<string, unknown> | undefined, quarters: number): Figures {
  const out: Figures = {};
  if (!hour || quarters <= 0) return out;
  for (const [attr, v] of Object.entries(hour)) {
    if (typeof v !== 'number') continue;
    const m = QUARTER_ATTR.exec(attr);
    if (!m || Number(m[2]) >= quarters || !isField(m[1]!)) continue;
    const f = m[1] as Field;
    out[f] = (out[f] ?? 0) + v;
  }
  return out;
}

/**
 * Which hour (or block: `unit` BLOCK) items give a day's head up to `tod` (seconds into the UTC day, a
 * multiple of 900): either the units before it (head) or the units from it (tail, subtracted from the day
 * total), whichever is fewer, so at most 12 full hours and one partial one (two blocks) are read.
 * `partialHour` is the unit the cut falls in (not needed in head mode when `partialQuarters` is 0).
 */
export function headPlan(
  tod: number,
  unit = HOUR,
): { mode: 'head' | 'tail'; hours: number[]; partialHour: number; partialQuarters: number } {
  const h = Math.floor(tod / unit);
  const q = Math.floor((tod % unit) / QUARTER);
  if (h + (q > 0 ? 1 : 0) <= DAY / unit - h) return { mode: 'head', hours: range(0, h), partialHour: h, partialQuarters: q };
  return { mode: 'tail', hours: range(h + 1, DAY / unit), partialHour: h, partialQuarters: q };
}

/** The hour (or block) items a day cut at `tod` reads (headPlan's, less a partial unit of no quarters). */
export function unitsRead(tod: number, unit = HOUR): number[] {
  const plan = headPlan(tod, unit);
  return plan.mode === 'head' && plan.partialQuarters === 0 ? plan.hours : [...plan.hours, plan.partialHour];
}

/**
 * Adds to `into` a UTC day's figures up to `tod` (seconds into the day, a multiple of 900), read as
 * `headPlan` says: the whole hours before the cut and the cut hour's first quarters, or the day's total
 * less its tail (the hours after the cut, and the cut hour from its quarter on). `hour(h)` is the day's
 * hour item h, if there is one; with `unit` BLOCK, its block item h (the groups read, merged).
 */
export function addDayHead(
  into: Figures,
  tod: number,
  day: Figures,
  hour: (h: number) => Record<string, unknown> | undefined,
  unit = HOUR,
): Figures {
  const plan = headPlan(tod, unit);
  const all = unit / QUARTER;
  if (plan.mode === 'head') {
    for (const h of plan.hours) addFigures(into, hourHead(hour(h), all));
    if (plan.partialQuarters) addFigures(into, hourHead(hour(plan.partialHour), plan.partialQuarters));
  } else {
    addFigures(into, day);
    for (const h of plan.hours) addFigures(into, hourHead(hour(h), all), -1);
    addFigures(into, hourHead(hour(plan.partialHour), all), -1);
    addFigures(into, hourHead(hour(plan.partialHour), plan.partialQuarters));
  }
  return into;
}

const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a) }, (_, i) => a + i);

/** Offsets (hours) Chatwoot's `timezone_offset` may carry: quarter hours from −12 to +14. */
export function offsetSeconds(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return 0;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < -12 || n > 14 || Math.round(n * 4) !== n * 4) return undefined;
  return Math.round(n * HOUR);
}

/** A fixed offset (seconds) or a named zone whose offset follows its DST rules. */
export type Zone = number | { offsetAt(t: number): number };

const offsetOf = (zone: Zone, t: number) => (typeof zone === 'number' ? zone : zone.offsetAt(t));
/** The local calendar day (days since the epoch) of instant t. */
const localDay = (zone: Zone, t: number) => Math.floor((t + offsetOf(zone, t)) / DAY);

/**
 * The first instant of local day (y, m, d) in the zone: local midnight, or — where a DST change skips
 * midnight — the first instant of that date (groupdate's, i.e. PostgreSQL's, day start). Offsets are
 * quarter hours, so the answer is a quarter-hour instant.
 */
export function localDayStart(y: number, m: number, d: number, zone: Zone): number {
  const wall = Date.UTC(y, m, d) / 1000;
  if (typeof zone === 'number') return wall - zone;
  const day = Math.floor(wall / DAY);
  let t = wall - zone.offsetAt(wall - zone.offsetAt(wall));
  for (let i = 0; i < 16 && localDay(zone, t) < day; i++) t += QUARTER;
  for (let i = 0; i < 16 && localDay(zone, t - QUARTER) >= day; i++) t -= QUARTER;
  return t;
}

/** Local calendar fields of instant t. */
function localFields(t: number, zone: Zone) {
  const local = new Date((t + offsetOf(zone, t)) * 1000);
  return { y: local.getUTCFullYear(), m: local.getUTCMonth(), d: local.getUTCDate(), wd: local.getUTCDay() };
}

/** Start (UTC instant) of the local period containing t. Weeks start on Sunday (groupdate's default). */
export function periodStart(t: number, group: GroupBy, zone: Zone): number {
  const { y, m, d, wd } = localFields(t, zone);
  switch (group) {
    case 'day':
      return localDayStart(y, m, d, zone);
    case 'week':
      return localDayStart(y, m, d - wd, zone);
    case 'month':
      return localDayStart(y, m, 1, zone);
    case 'year':
      return localDayStart(y, 0, 1, zone);
  }
}

export function nextPeriod(start: number, group: GroupBy, zone: Zone): number {
  const { y, m, d } = localFields(start, zone);
  return group === 'day'
    ? localDayStart(y, m, d + 1, zone)
    : group === 'week'
      ? localDayStart(y, m, d + 7, zone)
      : group === 'month'
        ? localDayStart(y, m + 1, 1, zone)
        : localDayStart(y + 1, 0, 1, zone);
}

export interface Period {
  /** The period's label: its local start (as Chatwoot's timestamps). */
  timestamp: number;
  from: number;
  to: number;
}

/** The periods of [since, until), each clipped to the range. */
export function periodsOf(since: number, until: number, group: GroupBy, zone: Zone): Period[] {
  const out: Period[] = [];
  for (let s = periodStart(since, group, zone); s < until; s = nextPeriod(s, group, zone)) {
    const e = nextPeriod(s, group, zone);
    out.push({ timestamp: s, from: Math.max(s, since), to: Math.min(e, until) });
  }
  return out;
}

export const floorQuarter = (t: number) => Math.floor(t / QUARTER) * QUARTER;
export const ceilQuarter = (t: number) => Math.ceil(t / QUARTER) * QUARTER;
