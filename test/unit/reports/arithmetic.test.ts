import { describe, expect, it } from 'vitest';
import { businessSeconds, zoneOffset } from '#shared/domain/reports/business-hours.ts';
import {
  dayKey,
  headPlan,
  hourHead,
  nextPeriod,
  offsetSeconds,
  periodsOf,
  periodStart,
  quarterOfHour,
} from '#shared/model/report-buckets.ts';
import { csvField, readableDuration } from '#shared/domain/reports/service.ts';
import type { WorkingHour } from '#shared/model/inboxes.ts';

const t = (iso: string) => Date.parse(iso) / 1000;
const week = (open: Partial<WorkingHour> | null): WorkingHour[] =>
  Array.from({ length: 7 }, (_, d) => ({
    day_of_week: d,
    closed_all_day: open === null || d === 0 || d === 6,
    open_all_day: false,
    open_hour: 9,
    open_minutes: 0,
    close_hour: 17,
    close_minutes: 30,
    ...(open ?? {}),
  }));

describe('business hours (Chatwoot ReportingEventHelper / business_time)', () => {
  const weekdays = { working_hours_enabled: true, working_hours: week({}), timezone: 'UTC' };

  it('counts only open hours of open weekdays', () => {
    // Monday 2026-01-05 08:00 → 10:00 UTC: the hour from 09:00.
    expect(businessSeconds(weekdays, t('2026-01-05T08:00:00Z'), t('2026-01-05T10:00:00Z'))).toBe(3600);
    // Friday 17:00 → Monday 09:30: Friday's last half hour and Monday's first.
    expect(businessSeconds(weekdays, t('2026-01-09T17:00:00Z'), t('2026-01-12T09:30:00Z'))).toBe(3600);
    // A whole week: five days of 8.5 hours.
    expect(businessSeconds(weekdays, t('2026-01-04T00:00:00Z'), t('2026-01-11T00:00:00Z'))).toBe(5 * 8.5 * 3600);
  });

  it("reads the hours in the inbox's timezone, with its DST", () => {
    const kolkata = { ...weekdays, timezone: 'Asia/Kolkata' };
    // 09:00 IST is 03:30 UTC.
    expect(businessSeconds(kolkata, t('2026-01-05T03:00:00Z'), t('2026-01-05T04:00:00Z'))).toBe(1800);
    const newYork = { ...weekdays, timezone: 'America/New_York' };
    // 09:00 in New York is 14:00 UTC in winter and 13:00 UTC in summer.
    expect(businessSeconds(newYork, t('2026-01-05T13:00:00Z'), t('2026-01-05T14:30:00Z'))).toBe(1800);
    expect(businessSeconds(newYork, t('2026-07-06T12:00:00Z'), t('2026-07-06T13:30:00Z'))).toBe(1800);
    expect(zoneOffset('Asia/Kathmandu', t('2026-01-05T00:00:00Z'))).toBe(5.75 * 3600);
  });

  it('is 0 without working hours, for an empty span, and when every day is closed; open all day counts everything', () => {
    expect(businessSeconds({ ...weekdays, working_hours_enabled: false }, 0, 86_400)).toBe(0);
    expect(businessSeconds(weekdays, 100, 100)).toBe(0);
    expect(businessSeconds({ ...weekdays, working_hours: week(null) }, t('2026-01-05T00:00:00Z'), t('2026-01-12T00:00:00Z'))).toBe(0);
    const always = { ...weekdays, working_hours: week({ closed_all_day: false, open_all_day: true }) };
    expect(businessSeconds(always, t('2026-01-05T10:00:00Z'), t('2026-01-07T10:00:07Z'))).toBe(2 * 86_400 + 7);
  });
});

describe('report buckets', () => {
  it('accepts the quarter-hour offsets Chatwoot zones have, and refuses others', () => {
    expect([undefined, '', '0', '5.5', '5.75', '-3.5', '12.75', '14', '-12'].map((v) => offsetSeconds(v))).toEqual([
      0, 0, 0, 19_800, 20_700, -12_600, 45_900, 50_400, -43_200,
    ]);
    for (const bad of ['5.3', '15', '-13', 'x', '1e3']) expect(offsetSeconds(bad), bad).toBeUndefined();
  });

  it('keys a UTC day and a quarter of an hour', () => {
    expect(dayKey(t('2026-03-01T23:59:59Z'))).toBe('20260301');
    expect(quarterOfHour(t('2026-03-01T10:44:59Z'))).toBe(2);
  });

  it('starts local periods at local midnight, Sunday weeks, month and year starts', () => {
    const ist = 19_800;
    const at = t('2026-03-04T20:00:00Z'); // 2026-03-05 01:30 in India
    expect(periodStart(at, 'day', ist)).toBe(t('2026-03-04T18:30:00Z'));
    expect(periodStart(at, 'week', ist)).toBe(t('2026-02-28T18:30:00Z')); // Sunday 1 March, local
    expect(periodStart(at, 'month', ist)).toBe(t('2026-02-28T18:30:00Z'));
    expect(periodStart(at, 'year', ist)).toBe(t('2025-12-31T18:30:00Z'));
    expect(nextPeriod(t('2026-01-31T18:30:00Z'), 'month', ist)).toBe(t('2026-02-28T18:30:00Z'));
    expect(periodStart(t('2026-03-04T02:00:00Z'), 'day', -12_600)).toBe(t('2026-03-03T03:30:00Z'));
  });

  it('cuts a range into clipped periods labelled by their local start', () => {
    const ist = 19_800;
    const since = t('2026-03-01T00:00:00Z');
    const until = t('2026-03-03T00:00:00Z');
    expect(periodsOf(since, until, 'day', ist)).toEqual([
      { timestamp: t('2026-02-28T18:30:00Z'), from: since, to: t('2026-03-01T18:30:00Z') },
      { timestamp: t('2026-03-01T18:30:00Z'), from: t('2026-03-01T18:30:00Z'), to: t('2026-03-02T18:30:00Z') },
      { timestamp: t('2026-03-02T18:30:00Z'), from: t('2026-03-02T18:30:00Z'), to: until },
    ]);
    expect(periodsOf(since, until, 'year', 0)).toEqual([{ timestamp: t('2026-01-01T00:00:00Z'), from: since, to: until }]);
  });

  it('reads at most 12 whole hours and one partial hour to cut a day', () => {
    expect(headPlan(5.75 * 3600)).toEqual({ mode: 'head', hours: [0, 1, 2, 3, 4], partialHour: 5, partialQuarters: 3 });
    expect(headPlan(18.5 * 3600)).toEqual({ mode: 'tail', hours: [19, 20, 21, 22, 23], partialHour: 18, partialQuarters: 2 });
    expect(headPlan(12 * 3600).hours).toHaveLength(12);
    expect(headPlan(12.25 * 3600)).toEqual({
      mode: 'tail',
      hours: [13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23],
      partialHour: 12,
      partialQuarters: 1,
    });
    expect(hourHead({ cc_0: 1, cc_1: 2, cc_3: 4, om_2: 5 }, 2)).toEqual({ cc: 3 });
    expect(hourHead({ cc_0: 1, cc_1: 2, cc_3: 4, om_2: 5 }, 4)).toEqual({ cc: 7, om: 5 });
  });
});

describe('report CSV', () => {
  it("formats durations as Chatwoot's TimeFormatPresenter and neutralises formulas", () => {
    expect(readableDuration(null)).toBe('--');
    expect(readableDuration(0)).toBe('--');
    expect(readableDuration(61)).toBe('1 minute 1 second');
    expect(readableDuration(90_061.7)).toBe('1 day 1 hour 1 minute 1 second');
    expect(readableDuration(7_320)).toBe('2 hours 2 minutes');
    expect(csvField('=SUM(A1)')).toBe("'=SUM(A1)");
    expect(csvField('-5')).toBe('-5');
    expect(csvField('a,"b"')).toBe('"a,""b"""');
  });
});
