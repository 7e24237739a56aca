import { describe, expect, it } from 'vitest';
import { EMAIL_COLLECT, isOutOfOffice, templatesFor, wantsEmailCollect } from '#shared/domain/message-templates/hooks.ts';
import type { InboxRecord, WorkingHour } from '#shared/model/inboxes.ts';
import type { MessageRecord } from '#shared/model/messages.ts';

// The inbox's greeting and out-of-office decisions as pure rules: the working hours in the inbox's time zone, and
// which of a conversation's recent messages stop each template.

const day = (d: number, open: [number, number] | 'closed' | 'all'): WorkingHour => ({
  day_of_week: d,
  closed_all_day: open === 'closed',
  open_all_day: open === 'all',
  open_hour: Array.isArray(open) ? open[0] : null,
  open_minutes: Array.isArray(open) ? 0 : null,
  close_hour: Array.isArray(open) ? open[1] : null,
  close_minutes: Array.isArray(open) ? 0 : null,
});
const week = (open: [number, number] | 'closed' | 'all') => [0, 1, 2, 3, 4, 5, 6].map((d) => day(d, open));
// 2026-11-27 is a Friday; 14:30 UTC is 09:30 in New York.
const FRIDAY_1430_UTC = Date.UTC(2026, 10, 27, 14, 30) / 1000;

const inbox = (over: Partial<InboxRecord> = {}) =>
  ({
    greeting_enabled: true,
    greeting_message: 'Hello! We reply within the hour.',
    working_hours_enabled: false,
    working_hours: week([9, 17]),
    timezone: 'UTC',
    out_of_office_message: 'We are away.',
    ...over,
  }) as InboxRecord;

let ids = 0;
const msg = (type: 0 | 1 | 2 | 3, createdAt = FRIDAY_1430_UTC, over: Partial<MessageRecord> = {}) =>
  ({ id: ++ids, message_type: type, private: false, created_at: createdAt, content_attributes: {}, ...over }) as MessageRecord;

describe('isOutOfOffice', () => {
  it('is never when working hours are off', () => {
    expect(isOutOfOffice(inbox({ working_hours: week('closed') }), FRIDAY_1430_UTC)).toBe(false);
  });
  it('reads the hours in the inbox’s time zone', () => {
    const on = { working_hours_enabled: true, working_hours: week([10, 17]) };
    expect(isOutOfOffice(inbox({ ...on, timezone: 'UTC' }), FRIDAY_1430_UTC)).toBe(false);
    expect(isOutOfOffice(inbox({ ...on, timezone: 'America/New_York' }), FRIDAY_1430_UTC)).toBe(true);
  });
  it('honours closed and open all day, and the closing minute', () => {
    const hours = week([9, 17]);
    hours[5] = day(5, 'closed');
    expect(isOutOfOffice(inbox({ working_hours_enabled: true, working_hours: hours }), FRIDAY_1430_UTC)).toBe(true);
    hours[5] = day(5, 'all');
    expect(isOutOfOffice(inbox({ working_hours_enabled: true, working_hours: hours }), FRIDAY_1430_UTC)).toBe(false);
    hours[5] = day(5, [9, 14]);
    expect(isOutOfOffice(inbox({ working_hours_enabled: true, working_hours: hours }), FRIDAY_1430_UTC)).toBe(true);
  });
});

describe('templatesFor', () => {
  it('greets the first message of a conversation nobody answered', () => {
    const first = msg(0);
    expect(templatesFor(inbox(), first, [first], FRIDAY_1430_UTC)).toEqual(['Hello! We reply within the hour.']);
    const second = msg(0);
    expect(templatesFor(inbox(), second, [second, first], FRIDAY_1430_UTC)).toEqual(['Hello! We reply within the hour.']);
  });
  it('does not greet once an agent or a template answered, or without a greeting', () => {
    const m = msg(0);
    expect(templatesFor(inbox(), m, [m, msg(1)], FRIDAY_1430_UTC)).toEqual([]);
    expect(templatesFor(inbox(), m, [m, msg(3)], FRIDAY_1430_UTC)).toEqual([]);
    expect(templatesFor(inbox({ greeting_enabled: false }), m, [m], FRIDAY_1430_UTC)).toEqual([]);
    expect(templatesFor(inbox({ greeting_message: null }), m, [m], FRIDAY_1430_UTC)).toEqual([]);
  });
  it('answers out of office once a day, not while an agent answered in the last five minutes, and then greets no more', () => {
    const away = inbox({ working_hours_enabled: true, working_hours: week('closed') });
    const m = msg(0);
    expect(templatesFor(away, m, [m], FRIDAY_1430_UTC)).toEqual(['We are away.']);
    expect(templatesFor(away, m, [m, msg(3, FRIDAY_1430_UTC - 3600)], FRIDAY_1430_UTC)).toEqual([]);
    expect(templatesFor(away, m, [m, msg(3, FRIDAY_1430_UTC - 86_400)], FRIDAY_1430_UTC)).toEqual(['We are away.']);
    expect(templatesFor(away, m, [m, msg(1, FRIDAY_1430_UTC - 120)], FRIDAY_1430_UTC)).toEqual([]);
    expect(templatesFor(away, m, [m, msg(1, FRIDAY_1430_UTC - 120, { private: true })], FRIDAY_1430_UTC)).toEqual(['We are away.']);
  });
});

describe('wantsEmailCollect', () => {
  const widget = (over: Partial<InboxRecord> = {}) => inbox({ channel_type: 'Channel::WebWidget', enable_email_collect: true, ...over });
  it('asks in a web widget inbox with enable_email_collect, once per conversation', () => {
    const m = msg(0);
    expect(wantsEmailCollect(widget(), [m])).toBe(true);
    // After the greeting too: only an input_email message stops it.
    expect(wantsEmailCollect(widget(), [m, msg(3), msg(1)])).toBe(true);
    expect(wantsEmailCollect(widget(), [m, msg(3, FRIDAY_1430_UTC, { content_type: 'input_email' })])).toBe(false);
  });
  it('never elsewhere, nor with the setting off, nor past the start of a long conversation', () => {
    const m = msg(0);
    expect(wantsEmailCollect(widget({ enable_email_collect: false }), [m])).toBe(false);
    expect(wantsEmailCollect(widget({ channel_type: 'Channel::Api' }), [m])).toBe(false);
    expect(wantsEmailCollect(widget({ channel_type: 'Channel::Email' }), [m])).toBe(false);
    expect(
      wantsEmailCollect(
        widget(),
        Array.from({ length: 25 }, () => msg(0)),
      ),
    ).toBe(false);
  });
  it("holds Chatwoot's two messages: a line of text, then the input_email box", () => {
    expect(EMAIL_COLLECT).toEqual([
      { content: 'Give the team a way to reach you.' },
      { content: 'Get notified by email', content_type: 'input_email' },
    ]);
  });
});
