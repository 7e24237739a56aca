import { describe, expect, it } from 'vitest';
import {
  addDayHead,
  addFigures,
  BLOCK,
  blockOfDay,
  fieldGroup,
  FIELD_GROUPS,
  groupsOf,
  pickGroups,
  quarterOfBlock,
  unitsRead,
  ceilQuarter,
  DAY,
  dayStart,
  FIELDS,
  FIRST_RESPONSE_BUCKETS,
  firstResponseBucket,
  floorQuarter,
  hourHead,
  inboxField,
  isField,
  HOUR,
  hourOfDay,
  nextPeriod,
  periodsOf,
  periodStart,
  QUARTER,
  quarterField,
  quarterOfHour,
  type Field,
  type Figures,
} from '#shared/model/report-buckets.ts';

// Report bucket arithmetic (shared/model/report-buckets.ts) beyond arithmetic.test.ts and zones.test.ts:
// a day's head from its hour items for every quarter of the day, the quarter/hour/day helpers, and periods
// in the half- and three-quarter-hour zones Chatwoot accepts.

const t = (iso: string) => Date.parse(iso) / 1000;
const H = HOUR;

/** A day's figures recorded at quarter-hour instants, kept as the table keeps them: a day total and hour items of four quarters. */
function recordedDay(seed: number) {
  let x = seed;
  // The high bits of a linear congruential generator (its low bits repeat soon).
  const next = () => (x = (x * 1_103_515_245 + 12_345) % 2_147_483_648) >>> 16;
  const events: { quarter: number; figures: Figures }[] = [];
  for (let i = 0; i < 150; i++) {
    const field = FIELDS[next() % FIELDS.length] as Field;
    events.push({ quarter: next() % 96, figures: { [field]: 1 + (next() % 500) } });
  }
  // Some hours hold nothing: their items do not exist.
  const kept = events.filter((e) => ![3, 9, 16].includes(Math.floor(e.quarter / 4)));
  const day: Figures = {};
  const hours = new Map<number, Record<string, number>>();
  for (const e of kept) {
    addFigures(day, e.figures);
    const h = Math.floor(e.quarter / 4);
    const item = hours.get(h) ?? {};
    for (const [f, v] of Object.entries(e.figures) as [Field, number][])
      item[quarterField(f as Field, e.quarter % 4)] = (item[quarterField(f as Field, e.quarter % 4)] ?? 0) + v;
    hours.set(h, item);
  }
  // Every hour but those holds something, the first and last included.
  expect([...hours.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, h) => h).filter((h) => ![3, 9, 16].includes(h)));
  const before = (tod: number) =>
    kept.filter((e) => e.quarter * QUARTER < tod).reduce((into, e) => addFigures(into, e.figures), {} as Figures);
  return { day, hours, before };
}

const nonZero = (f: Figures) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== 0));

describe('a day’s head from its hour items (addDayHead)', () => {
  it('equals the figures recorded before the cut, at every quarter of the day, from either end', () => {
    for (const seed of [1, 7, 2026]) {
      const { day, hours, before } = recordedDay(seed);
      expect(Object.keys(day).length).toBeGreaterThan(5);
      for (let tod = 0; tod <= DAY; tod += QUARTER) {
        const head = addDayHead({}, tod, day, (h) => hours.get(h));
        expect(nonZero(head), `seed ${seed}, ${tod / H} h`).toEqual(before(tod));
      }
    }
  });

  it('reads at most 12 whole hour items and the cut one (none when the cut starts an hour of the head), never the same hour twice', () => {
    const { day, hours } = recordedDay(3);
    for (let tod = QUARTER; tod < DAY; tod += QUARTER) {
      const asked: number[] = [];
      addDayHead({}, tod, day, (h) => {
        asked.push(h);
        return hours.get(h);
      });
      const distinct = new Set(asked);
      expect(distinct.size, `${tod / H} h`).toBeLessThanOrEqual(13);
      expect(distinct.has(Math.floor(tod / H)), `${tod / H} h`).toBe(tod > DAY / 2 || tod % H !== 0);
      // What the reader fetches is what is asked.
      expect(
        [...distinct].sort((a, b) => a - b),
        `${tod / H} h`,
      ).toEqual(unitsRead(tod).sort((a, b) => a - b));
    }
  });

  it('adds onto what it is given (the days before) and answers that object', () => {
    const into: Figures = { cc: 10, om: 1 };
    const out = addDayHead(into, 13 * H + 2 * QUARTER, { cc: 5, im: 3 }, (h) =>
      h === 13 ? { cc_0: 1, cc_1: 1, cc_2: 1, im_3: 3 } : h === 20 ? { cc_0: 2 } : undefined,
    );
    expect(out).toBe(into);
    // The day less hours 14–23 (cc 2) and hour 13 (cc 3, im 3), plus hour 13's first two quarters (cc 2).
    expect(nonZero(out)).toEqual({ cc: 10 + 5 - 2 - 3 + 2, om: 1 });
  });
});

/** The same day kept as block items: one per six hours and field group, 24 quarters each. */
function blocksOf(events: Map<number, Record<string, number>>) {
  const blocks = new Map<string, Record<string, number>>();
  for (const [h, item] of events) {
    for (const [attr, v] of Object.entries(item)) {
      const [, f, q] = /^(.+)_(\d)$/.exec(attr)!;
      const key = `${fieldGroup(f as Field)}|${Math.floor(h / 6)}`;
      const block = blocks.get(key) ?? {};
      block[quarterField(f as Field, (h % 6) * 4 + Number(q))] = v;
      blocks.set(key, block);
    }
  }
  return blocks;
}

describe('a day’s head from its block items (six hours, one field group each)', () => {
  it('equals the figures recorded before the cut, at every quarter of the day, for any set of groups', () => {
    for (const seed of [1, 7, 2026]) {
      const { day, hours, before } = recordedDay(seed);
      const blocks = blocksOf(hours);
      for (const groups of [['n'], ['f'], ['n', 'f', 'r', 't'], [...FIELD_GROUPS]] as const) {
        for (let tod = 0; tod <= DAY; tod += QUARTER) {
          const head = addDayHead(
            {},
            tod,
            pickGroups(day, groups),
            (b) => Object.assign({}, ...groups.map((g) => blocks.get(`${g}|${b}`) ?? {})),
            BLOCK,
          );
          expect(nonZero(head), `seed ${seed}, ${groups}, ${tod / H} h`).toEqual(pickGroups(before(tod), groups));
        }
      }
    }
  });

  it('reads at most two blocks to cut a day, never the same one twice', () => {
    for (let tod = QUARTER; tod < DAY; tod += QUARTER) {
      const read = unitsRead(tod, BLOCK);
      expect(read.length, `${tod / H} h`).toBeLessThanOrEqual(2);
      expect(new Set(read).size).toBe(read.length);
    }
    // +5:30 cuts at 18:30 UTC: the last block alone (the day less its tail).
    expect(unitsRead(18.5 * H, BLOCK)).toEqual([3]);
    // −3 cuts at 03:00: the first block's first twelve quarters.
    expect(unitsRead(3 * H, BLOCK)).toEqual([0]);
    expect(unitsRead(6 * H, BLOCK)).toEqual([0]);
    expect(unitsRead(13 * H, BLOCK)).toEqual([3, 2]);
  });

  it('an instant falls in one block and one of its 24 quarters', () => {
    expect(blockOfDay(t('2026-11-20T18:30:00Z'))).toBe(3);
    expect(quarterOfBlock(t('2026-11-20T18:30:00Z'))).toBe(2);
    expect(blockOfDay(t('2026-11-20T05:59:59Z'))).toBe(0);
    expect(quarterOfBlock(t('2026-11-20T05:59:59Z'))).toBe(23);
  });
});

describe('field groups', () => {
  it('counts, first responses, resolutions, reply times, statuses and ratings each have their group', () => {
    const byGroup = Object.fromEntries(FIELD_GROUPS.map((g) => [g, FIELDS.filter((f) => fieldGroup(f) === g)]));
    expect(byGroup).toEqual({
      n: ['cc', 'im', 'om', 'br', 'bh', 'cs'],
      f: ['fr_n', 'fr_s', 'fr_b', 'fd0', 'fd1', 'fd2', 'fd3', 'fd4'],
      r: ['rs_n', 'rs_s', 'rs_b'],
      t: ['rt_n', 'rt_s', 'rt_b'],
      s: ['st_open', 'st_resolved', 'st_pending', 'st_snoozed'],
      c: ['c1', 'c2', 'c3', 'c4', 'c5'],
    });
    // A label's count by inbox rides with its count.
    expect(fieldGroup(inboxField(12))).toBe('n');
    expect(groupsOf(['cc', 'fr_n', 'fr_s', 'om'])).toEqual(['n', 'f']);
    expect(pickGroups({ cc: 1, fr_n: 2, rt_n: 3, li4: 5 }, ['n', 't'])).toEqual({ cc: 1, rt_n: 3, li4: 5 });
  });
});

describe('figures', () => {
  it('addFigures adds or subtracts every field it is given, into the first object', () => {
    const into: Figures = { cc: 2, fr_s: 30 };
    expect(addFigures(into, { cc: 1, im: 4 })).toBe(into);
    expect(into).toEqual({ cc: 3, fr_s: 30, im: 4 });
    expect(addFigures(into, { cc: 3, fr_s: 10 }, -1)).toEqual({ cc: 0, fr_s: 20, im: 4 });
  });

  it('an hour item keeps one attribute per figure and quarter', () => {
    expect(quarterField('fr_s', 3)).toBe('fr_s_3');
    expect(FIELDS).toContain('st_snoozed');
    expect(new Set(FIELDS).size).toBe(FIELDS.length);
  });

  it('keyed inbox fields (li<inbox id>) are figures; other numeric attributes are not', () => {
    expect([isField('li12'), isField('fd4'), isField('cc'), isField('account_id'), isField('li'), isField('lix')]).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(inboxField(7)).toBe('li7');
    // An hour item's quarters of keyed and fixed fields are summed; its other numbers left out.
    const hour = { li7_0: 2, li7_3: 5, fr_n_1: 1, fr_n_2: 4, account_id: 9, li7: 100, series: 'L#x' };
    expect(hourHead(hour, 2)).toEqual({ li7: 2, fr_n: 1 });
    expect(hourHead(hour, 4)).toEqual({ li7: 7, fr_n: 5 });
    expect(hourHead(hour, 0)).toEqual({});
  });

  it('first responses fall in Chatwoot’s buckets: under 1 h, 1–4 h, 4–8 h, 8–24 h, 24 h and more', () => {
    const at = [0, 3_599, 3_600, 14_399, 14_400, 28_799, 28_800, 86_399, 86_400, 10 * 86_400];
    expect(at.map(firstResponseBucket)).toEqual(['fd0', 'fd0', 'fd1', 'fd1', 'fd2', 'fd2', 'fd3', 'fd3', 'fd4', 'fd4']);
    expect(FIRST_RESPONSE_BUCKETS.map((b) => b.label)).toEqual(['0-1h', '1-4h', '4-8h', '8-24h', '24h+']);
  });
});

describe('instants', () => {
  it('the UTC day, hour of day and quarter of hour of an instant', () => {
    const at = t('2026-03-01T17:44:59Z');
    expect(dayStart(at)).toBe(t('2026-03-01T00:00:00Z'));
    expect(hourOfDay(at)).toBe(17);
    expect(quarterOfHour(at)).toBe(2);
    expect([hourOfDay(t('2026-03-01T00:00:00Z')), quarterOfHour(t('2026-03-01T00:15:00Z')), hourOfDay(t('2026-03-01T23:59:59Z'))]).toEqual([
      0, 1, 23,
    ]);
  });

  it('rounds ranges out to quarter hours, leaving a quarter-hour instant as it is', () => {
    expect(floorQuarter(t('2026-03-01T10:14:59Z'))).toBe(t('2026-03-01T10:00:00Z'));
    expect(ceilQuarter(t('2026-03-01T10:00:01Z'))).toBe(t('2026-03-01T10:15:00Z'));
    expect(floorQuarter(t('2026-03-01T10:45:00Z'))).toBe(t('2026-03-01T10:45:00Z'));
    expect(ceilQuarter(t('2026-03-01T10:45:00Z'))).toBe(t('2026-03-01T10:45:00Z'));
  });
});

describe('periods in quarter-hour zones', () => {
  it('Nepal (+5:45): days start at 18:15 UTC the day before, on quarter-hour boundaries', () => {
    const nepal = 5.75 * H;
    const days = periodsOf(t('2026-03-01T00:00:00Z'), t('2026-03-03T00:00:00Z'), 'day', nepal);
    expect(days.map((p) => p.timestamp)).toEqual([t('2026-02-28T18:15:00Z'), t('2026-03-01T18:15:00Z'), t('2026-03-02T18:15:00Z')]);
    for (const p of days) expect(p.from % QUARTER).toBe(0);
  });

  it('Chatham (+12:45) and Newfoundland (−3:30): day, week and month starts', () => {
    const chatham = 12.75 * H;
    expect(periodStart(t('2026-03-04T12:00:00Z'), 'day', chatham)).toBe(t('2026-03-04T11:15:00Z'));
    expect(periodStart(t('2026-03-04T11:00:00Z'), 'day', chatham)).toBe(t('2026-03-03T11:15:00Z'));
    const newfoundland = -3.5 * H;
    // Wednesday 4 March 2026; the week starts on Sunday 1 March, local.
    expect(periodStart(t('2026-03-04T12:00:00Z'), 'week', newfoundland)).toBe(t('2026-03-01T03:30:00Z'));
    expect(periodStart(t('2026-03-01T02:00:00Z'), 'month', newfoundland)).toBe(t('2026-02-01T03:30:00Z'));
  });

  it('months and years roll over the end of the year', () => {
    expect(nextPeriod(t('2025-12-01T00:00:00Z'), 'month', 0)).toBe(t('2026-01-01T00:00:00Z'));
    expect(nextPeriod(t('2025-12-28T00:00:00Z'), 'week', 0)).toBe(t('2026-01-04T00:00:00Z'));
    expect(nextPeriod(t('2025-12-31T18:30:00Z'), 'year', 5.5 * H)).toBe(t('2026-12-31T18:30:00Z'));
  });

  it('weeks of a range: Sunday starts, the first and last clipped to the range', () => {
    const since = t('2026-03-04T00:00:00Z'); // a Wednesday
    const until = t('2026-03-19T12:00:00Z');
    expect(periodsOf(since, until, 'week', 0)).toEqual([
      { timestamp: t('2026-03-01T00:00:00Z'), from: since, to: t('2026-03-08T00:00:00Z') },
      { timestamp: t('2026-03-08T00:00:00Z'), from: t('2026-03-08T00:00:00Z'), to: t('2026-03-15T00:00:00Z') },
      { timestamp: t('2026-03-15T00:00:00Z'), from: t('2026-03-15T00:00:00Z'), to: until },
    ]);
  });

  it('periods cover a range exactly, end to end; an empty range has none', () => {
    for (const [group, zone] of [
      ['day', 5.75 * H],
      ['week', -3.5 * H],
      ['month', 12.75 * H],
      ['year', 0],
    ] as const) {
      const since = t('2025-11-17T06:45:00Z');
      const until = t('2026-04-02T21:15:00Z');
      const ps = periodsOf(since, until, group, zone);
      expect(ps[0].from, group).toBe(since);
      expect(ps.at(-1)!.to, group).toBe(until);
      for (let i = 1; i < ps.length; i++) expect(ps[i].from, group).toBe(ps[i - 1].to);
      for (const p of ps) expect(p.from, group).toBeLessThan(p.to);
    }
    expect(periodsOf(t('2026-03-02T00:00:00Z'), t('2026-03-02T00:00:00Z'), 'day', 0)).toEqual([]);
    expect(periodsOf(t('2026-03-03T00:00:00Z'), t('2026-03-02T00:00:00Z'), 'day', 0)).toEqual([]);
  });
});
