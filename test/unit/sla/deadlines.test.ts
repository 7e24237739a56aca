import { describe, expect, it } from 'vitest';
import { addBusinessSeconds, businessSeconds, type WorkingSchedule } from '#shared/domain/reports/business-hours.ts';
import { evaluateSla, type SlaThresholds } from '#shared/domain/sla/evaluate.ts';

// 2026-03-02 was a Monday.
const MON = Date.UTC(2026, 2, 2) / 1000;
const H = 3600;
const weekdays = (tz: string, open = 9, close = 17): WorkingSchedule => ({
  working_hours_enabled: true,
  timezone: tz,
  working_hours: [0, 1, 2, 3, 4, 5, 6].map((day) =>
    day === 0 || day === 6
      ? {
          day_of_week: day,
          closed_all_day: true,
          open_all_day: false,
          open_hour: null,
          open_minutes: null,
          close_hour: null,
          close_minutes: null,
        }
      : {
          day_of_week: day,
          closed_all_day: false,
          open_all_day: false,
          open_hour: open,
          open_minutes: 0,
          close_hour: close,
          close_minutes: 0,
        },
  ),
});

describe('addBusinessSeconds', () => {
  it('adds plain seconds when working hours are off', () => {
    expect(addBusinessSeconds(undefined, MON, 90)).toBe(MON + 90);
    expect(addBusinessSeconds({ ...weekdays('UTC'), working_hours_enabled: false }, MON, 90)).toBe(MON + 90);
  });

  it('counts only open hours, across nights and weekends', () => {
    const s = weekdays('UTC');
    // Monday 08:00 + 1 h of business time: opens at 09:00, due 10:00.
    expect(addBusinessSeconds(s, MON + 8 * H, H)).toBe(MON + 10 * H);
    // Monday 16:30 + 1 h: 30 min on Monday, 30 min on Tuesday from 09:00.
    expect(addBusinessSeconds(s, MON + 16.5 * H, H)).toBe(MON + 24 * H + 9.5 * H);
    // Friday 16:00 + 2 h: 1 h on Friday, the rest on Monday from 09:00.
    const fri = MON + 4 * 24 * H;
    expect(addBusinessSeconds(s, fri + 16 * H, 2 * H)).toBe(fri + 3 * 24 * H + 10 * H);
  });

  it('reads the hours in the inbox timezone and agrees with businessSeconds', () => {
    const s = weekdays('Asia/Kolkata'); // UTC+5:30: 09:00 local is 03:30 UTC.
    const due = addBusinessSeconds(s, MON, 2 * H)!;
    expect(due).toBe(MON + 5.5 * H);
    for (const [from, secs] of [
      [MON + 1234, 5 * H],
      [MON + 3 * 24 * H + 77, 11 * H + 17],
      [MON - 2 * 24 * H, 40 * H],
    ]) {
      const at = addBusinessSeconds(s, from, secs)!;
      expect(businessSeconds(s, from, at)).toBe(secs);
    }
  });

  it('has no deadline for a schedule that never opens', () => {
    const closed = { ...weekdays('UTC'), working_hours: [] };
    expect(addBusinessSeconds(closed, MON, 60)).toBeNull();
  });
});

const policy = (p: Partial<SlaThresholds>): SlaThresholds => ({
  first_response_time_threshold: null,
  next_response_time_threshold: null,
  resolution_time_threshold: null,
  only_during_business_hours: false,
  ...p,
});
const conv = (c: Partial<Parameters<typeof evaluateSla>[0]['conversation']> = {}) => ({
  created_at: MON,
  status: 'open',
  first_reply_created_at: null,
  waiting_since: MON,
  ...c,
});

describe('evaluateSla (Chatwoot Sla::EvaluateAppliedSlaService)', () => {
  it('waits for the first-response deadline, then misses it once', () => {
    const base = { policy: policy({ first_response_time_threshold: 60 }), conversation: conv(), schedule: undefined, past: [] };
    expect(evaluateSla({ ...base, status: 'active', now: MON + 59 })).toEqual({ status: 'active', misses: [], ahead: [MON + 60] });
    expect(evaluateSla({ ...base, status: 'active', now: MON + 60 })).toEqual({
      status: 'active_with_misses',
      misses: [{ event_type: 'frt', due: MON + 60 }],
      ahead: [],
    });
    expect(evaluateSla({ ...base, status: 'active_with_misses', past: [{ event_type: 'frt' }], now: MON + 600 })).toEqual({
      status: 'active_with_misses',
      misses: [],
      ahead: [],
    });
  });

  it('is hit when replied in time and resolved; missed when resolved after a miss', () => {
    const p = policy({ first_response_time_threshold: 60, resolution_time_threshold: 600 });
    // Every deadline ahead, soonest first.
    expect(evaluateSla({ policy: p, conversation: conv(), schedule: undefined, status: 'active', past: [], now: MON }).ahead).toEqual([
      MON + 60,
      MON + 600,
    ]);
    const replied = conv({ first_reply_created_at: MON + 30, waiting_since: null });
    expect(evaluateSla({ policy: p, conversation: replied, schedule: undefined, status: 'active', past: [], now: MON + 100 })).toEqual({
      status: 'active',
      misses: [],
      ahead: [MON + 600],
    });
    expect(
      evaluateSla({
        policy: p,
        conversation: { ...replied, status: 'resolved' },
        schedule: undefined,
        status: 'active',
        past: [],
        now: MON + 300,
      }),
    ).toEqual({ status: 'hit', misses: [], ahead: [] });
    // A late first reply is a miss, and the resolution then makes it missed.
    const late = conv({ first_reply_created_at: MON + 90, waiting_since: null, status: 'resolved' });
    expect(evaluateSla({ policy: p, conversation: late, schedule: undefined, status: 'active', past: [], now: MON + 100 })).toEqual({
      status: 'missed',
      misses: [{ event_type: 'frt', due: MON + 60 }],
      ahead: [],
    });
    // Final states stay.
    expect(evaluateSla({ policy: p, conversation: conv(), schedule: undefined, status: 'hit', past: [], now: MON + 9999 }).status).toBe(
      'hit',
    );
  });

  it('times each wait for a next response after the first reply, one miss per wait', () => {
    const p = policy({ next_response_time_threshold: 120 });
    const waiting = conv({ first_reply_created_at: MON + 10, waiting_since: MON + 500 });
    expect(
      evaluateSla({ policy: p, conversation: waiting, schedule: undefined, status: 'active', past: [], now: MON + 600 }).ahead,
    ).toEqual([MON + 620]);
    const v = evaluateSla({ policy: p, conversation: waiting, schedule: undefined, status: 'active', past: [], now: MON + 620 });
    expect(v.misses).toEqual([{ event_type: 'nrt', waiting_since: MON + 500, due: MON + 620 }]);
    const past = [{ event_type: 'nrt' as const, waiting_since: MON + 500 }];
    expect(
      evaluateSla({ policy: p, conversation: waiting, schedule: undefined, status: 'active_with_misses', past, now: MON + 900 }).misses,
    ).toEqual([]);
    // A new wait is timed again.
    const again = { ...waiting, waiting_since: MON + 1000 };
    expect(
      evaluateSla({ policy: p, conversation: again, schedule: undefined, status: 'active_with_misses', past, now: MON + 1000 }).ahead,
    ).toEqual([MON + 1120]);
    // Before the first reply there is no next-response clock.
    expect(
      evaluateSla({ policy: p, conversation: conv(), schedule: undefined, status: 'active', past: [], now: MON + 9999 }).misses,
    ).toEqual([]);
  });

  it('counts business hours only when the policy says so', () => {
    const p = policy({ first_response_time_threshold: H, only_during_business_hours: true });
    const s = weekdays('UTC');
    const c = conv({ created_at: MON + 16.5 * H });
    expect(evaluateSla({ policy: p, conversation: c, schedule: s, status: 'active', past: [], now: MON + 18 * H }).ahead).toEqual([
      MON + 33.5 * H,
    ]);
    expect(
      evaluateSla({
        policy: { ...p, only_during_business_hours: false },
        conversation: c,
        schedule: s,
        status: 'active',
        past: [],
        now: MON + 18 * H,
      }).misses,
    ).toEqual([{ event_type: 'frt', due: MON + 17.5 * H }]);
  });
});
