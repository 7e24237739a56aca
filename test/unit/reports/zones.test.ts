import { describe, expect, it } from 'vitest';
import { periodsOf, periodStart, nextPeriod, localDayStart } from '#shared/model/report-buckets.ts';
import { railsZone, zoneForOffset } from '#shared/domain/reports/zones.ts';

// The zone Chatwoot reads timezone_offset as (TimezoneHelper#timezone_name_from_offset over
// ActiveSupport::TimeZone.all), and periods bucketed in it across DST changes.

const t = (iso: string) => Date.parse(iso) / 1000;
const H = 3_600;

describe('timezone_offset → zone (Chatwoot TimezoneHelper, Rails zones)', () => {
  const january = t('2026-01-15T12:00:00Z');
  const july = t('2026-07-15T12:00:00Z');
  const pick = (hours: number, now: number) => zoneForOffset(hours * H, now);

  it('takes the first Rails zone (by standard offset, then name) whose offset now is the one asked', () => {
    expect(pick(5.5, january)).toMatchObject({ name: 'Chennai', tz: 'Asia/Kolkata' });
    expect(pick(5.75, january)).toMatchObject({ name: 'Kathmandu', tz: 'Asia/Kathmandu' });
    expect(pick(-5, january)).toMatchObject({ name: 'Bogota', tz: 'America/Bogota' });
    // DST in force today counts: in July −4 is New York's summer time (Bogota, first of the −5 zones, is −5).
    expect(pick(-4, july)).toMatchObject({ name: 'Eastern Time (US & Canada)', tz: 'America/New_York' });
    expect(pick(-4, january)).toMatchObject({ name: 'Atlantic Time (Canada)', tz: 'America/Halifax' });
    // −3 in January: Santiago's summer time (a −4 zone) sorts before every −3 zone.
    expect(pick(-3, january)).toMatchObject({ name: 'Santiago', tz: 'America/Santiago' });
    expect(pick(13, january)).toMatchObject({ name: 'Auckland', tz: 'Pacific/Auckland' });
    expect(pick(12, july)).toMatchObject({ name: 'Auckland', tz: 'Pacific/Auckland' });
    expect(pick(13, july)).toMatchObject({ name: "Nuku'alofa", tz: 'Pacific/Tongatapu' });
    // 0 in winter is Dublin (with its summer time); in summer the Azores' summer time (a −1 zone) comes first.
    expect(pick(0, january)).toMatchObject({ name: 'Dublin', tz: 'Europe/Dublin' });
    expect(pick(0, july)).toMatchObject({ name: 'Azores', tz: 'Atlantic/Azores' });
    expect(pick(-3.5, january)).toMatchObject({ name: 'Newfoundland', tz: 'America/St_Johns' });
  });

  it('falls back to UTC when no Rails zone has the offset now', () => {
    expect(pick(14, january).name).toBe('UTC');
    expect(pick(-12, january).name).toBe('UTC');
    // Newfoundland is at −2:30 in summer: nothing is at −3:30.
    expect(pick(-3.5, july).name).toBe('UTC');
    expect(pick(0, january).offsetAt(july)).toBe(H);
  });

  it('ActiveSupport::TimeZone[hours]: the first zone whose standard offset it is', () => {
    expect(railsZone(5.5, january)?.name).toBe('Chennai');
    expect(railsZone(-5, july)?.name).toBe('Bogota');
    expect(railsZone(1, july)?.name).toBe('Amsterdam');
    expect(railsZone(-3.5, july)?.name).toBe('Newfoundland');
    expect(railsZone(14, january)).toBeUndefined();
  });
});

describe('periods in a zone with DST', () => {
  const auckland = zoneForOffset(13 * H, t('2026-01-15T12:00:00Z'));
  const newYork = zoneForOffset(-4 * H, t('2026-07-15T12:00:00Z'));

  it('days start at local midnight on both sides of a change (Auckland, 5 April 2026: +13 → +12)', () => {
    expect(periodsOf(t('2026-04-03T11:00:00Z'), t('2026-04-06T12:00:00Z'), 'day', auckland).map((p) => p.timestamp)).toEqual([
      t('2026-04-03T11:00:00Z'),
      t('2026-04-04T11:00:00Z'),
      t('2026-04-05T12:00:00Z'),
    ]);
    // The day of the change lasts 25 hours.
    expect(nextPeriod(t('2026-04-04T11:00:00Z'), 'day', auckland) - t('2026-04-04T11:00:00Z')).toBe(25 * H);
  });

  it('weeks, months and years in New York across March and November', () => {
    expect(periodStart(t('2026-03-10T12:00:00Z'), 'week', newYork)).toBe(t('2026-03-08T05:00:00Z')); // Sunday 8 March, before 2:00 EST→EDT
    expect(nextPeriod(t('2026-03-08T05:00:00Z'), 'week', newYork)).toBe(t('2026-03-15T04:00:00Z'));
    expect(periodStart(t('2026-11-20T12:00:00Z'), 'month', newYork)).toBe(t('2026-11-01T04:00:00Z'));
    expect(nextPeriod(t('2026-11-01T04:00:00Z'), 'month', newYork)).toBe(t('2026-12-01T05:00:00Z'));
    expect(periodStart(t('2026-07-01T00:00:00Z'), 'year', newYork)).toBe(t('2026-01-01T05:00:00Z'));
  });

  it('a day whose midnight a change skips starts at its first instant (Santiago, 6 September 2026: 00:00 → 01:00)', () => {
    const santiago = zoneForOffset(-3 * H, t('2026-01-15T12:00:00Z'));
    expect(santiago.tz).toBe('America/Santiago');
    // 00:00 −04 would be 04:00Z; the clock jumps from 23:59:59 on the 5th to 01:00 −03 (04:00Z).
    expect(localDayStart(2026, 8, 6, santiago)).toBe(t('2026-09-06T04:00:00Z'));
    expect(localDayStart(2026, 8, 7, santiago)).toBe(t('2026-09-07T03:00:00Z'));
    // Fixed offsets are unchanged.
    expect(localDayStart(2026, 2, 5, 19_800)).toBe(t('2026-03-04T18:30:00Z'));
  });
});
