import { beforeAll, describe, expect, it } from 'vitest';
import { recordFact } from '#shared/db/repositories/report-logs.ts';
import * as keys from '#shared/db/keys.ts';
import { ok } from '../conversations/fixtures.ts';
import { seedAccount, type SeededAccount } from '../../support/runtime.ts';

// timezone_offset read as Chatwoot reads it: the Rails zone that has the offset today, with its DST.
// Auckland (+13 in the southern summer, +12 in winter) is the zone Chatwoot picks for its own offset all
// year round; its summer time ended on 5 April 2026 (03:00 NZDT → 02:00 NZST). Conversations cannot be
// created in the past through the API, so the figures of those days are recorded with the pipeline's own
// writer (recordFact, as for an event of that time); the report is read over HTTP.

const t = (iso: string) => Date.parse(iso) / 1000;

/** Auckland's offset now, in hours (what a browser there sends). */
function aucklandHours(): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: 'Pacific/Auckland', timeZoneName: 'longOffset' })
    .formatToParts(new Date())
    .find((p) => p.type === 'timeZoneName')!.value; // "GMT+13:00"
  const [, sign, h, m] = /GMT([+-])(\d\d):(\d\d)/.exec(name)!;
  return (sign === '-' ? -1 : 1) * (Number(h) + Number(m) / 60);
}

describe('reports in a timezone with daylight saving time', { timeout: 60_000 }, () => {
  let s: SeededAccount;
  // Local (Auckland) instants: the day before the change (NZDT, +13), the day of the change (25 hours),
  // the day after (NZST, +12).
  const at = {
    apr4early: t('2026-04-04T00:10:00+13:00'),
    apr4late: t('2026-04-04T23:50:00+13:00'),
    apr5late: t('2026-04-05T23:50:00+12:00'),
    apr6early: t('2026-04-06T00:10:00+12:00'),
    apr6late: t('2026-04-06T23:50:00+12:00'),
  };
  const midnights = [
    t('2026-04-04T00:00:00+13:00'),
    t('2026-04-05T00:00:00+13:00'),
    t('2026-04-06T00:00:00+12:00'),
    t('2026-04-07T00:00:00+12:00'),
  ];

  beforeAll(async () => {
    s = await seedAccount();
    let n = 0;
    for (const instant of Object.values(at)) {
      await recordFact({
        fact: {
          id: `tz-test:${s.accountId}:${++n}`,
          account_id: s.accountId,
          conversation_id: null,
          contributions: [{ series: keys.reportSeries.account(), at: instant, figures: { cc: 1, im: n } }],
          created_at: instant,
        },
      });
    }
  });

  const series = async (query: Record<string, string | number>) =>
    ok(
      await s.admin.api.get(
        `/api/v2/accounts/${s.accountId}/reports?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)] as [string, string]))}`,
      ),
      'report',
    ) as {
      value: number;
      timestamp: number;
    }[];

  it('groups days at local midnight on both sides of the change', async () => {
    const days = await series({
      metric: 'conversations_count',
      since: midnights[0]!,
      until: midnights[3]!,
      timezone_offset: aucklandHours(),
    });
    expect(days).toEqual([
      { timestamp: midnights[0], value: 2 },
      // 5 April lasted 25 hours: 23:50 NZST is still the 5th (a fixed +13 would put it on the 6th).
      { timestamp: midnights[1], value: 1 },
      { timestamp: midnights[2], value: 2 },
    ]);
    const incoming = await series({
      metric: 'incoming_messages_count',
      since: midnights[0]!,
      until: midnights[3]!,
      timezone_offset: aucklandHours(),
    });
    expect(incoming.map((p) => p.value)).toEqual([1 + 2, 3, 4 + 5]);
  });

  it('a fixed-offset zone (no DST) for the same instants cuts the days elsewhere', async () => {
    // +5:30 (Chennai, Asia/Kolkata): the same five instants over the same span.
    const days = await series({ metric: 'conversations_count', since: midnights[0]!, until: midnights[3]!, timezone_offset: 5.5 });
    const local = (iso: string) => t(`${iso}T00:00:00+05:30`);
    // In India the five instants fall in the afternoons of the 3rd, 4th, 5th (two) and 6th.
    expect(days).toEqual([
      { timestamp: local('2026-04-03'), value: 1 },
      { timestamp: local('2026-04-04'), value: 1 },
      { timestamp: local('2026-04-05'), value: 2 },
      { timestamp: local('2026-04-06'), value: 1 },
    ]);
  });

  it('months and weeks in the zone', async () => {
    const month = await series({
      metric: 'conversations_count',
      group_by: 'month',
      since: midnights[0]!,
      until: midnights[3]!,
      timezone_offset: aucklandHours(),
    });
    expect(month).toEqual([{ timestamp: t('2026-04-01T00:00:00+13:00'), value: 5 }]);
    const weeks = await series({
      metric: 'conversations_count',
      group_by: 'week',
      since: midnights[0]!,
      until: midnights[3]!,
      timezone_offset: aucklandHours(),
    });
    // Weeks start on Sunday: Saturday the 4th is in the week of 29 March (NZDT), Sunday the 5th starts the next.
    expect(weeks).toEqual([
      { timestamp: t('2026-03-29T00:00:00+13:00'), value: 2 },
      { timestamp: t('2026-04-05T00:00:00+13:00'), value: 3 },
    ]);
  });
});
