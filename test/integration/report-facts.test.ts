import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import {
  getConversationReportState,
  listConversationReportingEvents,
  queryReportDays,
  readPendingReports,
  recordFacts,
  type FactWrite,
} from '#shared/db/repositories/reports.ts';
import { foldAll } from '#shared/domain/reports/fold.ts';
import { dayKey } from '#shared/model/report-buckets.ts';
import { sumsBetween } from '#shared/domain/reports/reader.ts';
import { scopedCallRecorder } from '../support/calls.ts';
import { runtime } from '../support/runtime.ts';

// A dispatcher batch's report facts (DynamoDB Local): plain puts and one log per account, reads adding the
// log until a fold adds it to the aggregate items, and a redelivered batch adding nothing.

describe('report facts of a batch (recordFacts)', () => {
  const accountId = 800_000_000 + Math.floor(Math.random() * 1_000_000);
  const t = Math.floor(Date.now() / 1000 / 86_400) * 86_400 + 3_600;
  const calls: string[] = [];
  beforeAll(async () => {
    await runtime();
    db().middlewareStack.add(
      (next, context) => async (args) => {
        const input = JSON.stringify(args.input);
        if (input.includes(`RPTF#${accountId}`) || input.includes(`RPT#${accountId}#`) || input.includes(`RPTP#${accountId}"`))
          calls.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'reportFactsRecorder' },
    );
  });

  const fact = (n: number, at = t): FactWrite => ({
    fact: {
      id: `batch-test:${accountId}:${n}`,
      account_id: accountId,
      conversation_id: 1,
      contributions: [
        { series: keys.reportSeries.account(), at, figures: { im: 1 } },
        { series: keys.reportSeries.team(7), at, figures: { im: 1 } },
      ],
      created_at: at,
    },
  });
  const incoming = async (series: string) =>
    (await queryReportDays(accountId, series, dayKey(t), dayKey(t), await readPendingReports(accountId))).get(dayKey(t))?.im ?? 0;
  const stored = async (series: string) => (await queryReportDays(accountId, series, dayKey(t), dayKey(t))).get(dayKey(t))?.im ?? 0;

  it('writes ten facts with plain puts and one log, no transaction; reads add the log until a fold adds it once', async () => {
    calls.length = 0;
    await recordFacts(
      accountId,
      Array.from({ length: 10 }, (_, i) => fact(i)),
    );
    expect(calls).toEqual(Array(11).fill('PutItemCommand'));
    expect(await stored(keys.reportSeries.account())).toBe(0);
    expect(await incoming(keys.reportSeries.account())).toBe(10);
    expect(await incoming(keys.reportSeries.team(7))).toBe(10);
    const [fold] = await foldAll(accountId);
    // Account and team, a day and an hour item each.
    expect(fold).toMatchObject({ folded: true, logs: 1, facts: 10, items: 4 });
    expect(await stored(keys.reportSeries.account())).toBe(10);
    expect(await incoming(keys.reportSeries.account())).toBe(10);
    expect(await incoming(keys.reportSeries.team(7))).toBe(10);
  });

  it('adds nothing twice when part of a batch comes again', async () => {
    // Facts 8 and 9 were recorded before; 10 and 11 are new.
    const logged = await recordFacts(accountId, [fact(8), fact(9), fact(10), fact(11)]);
    expect(logged.logs.map((l) => l.n)).toEqual([2]);
    expect(await incoming(keys.reportSeries.account())).toBe(12);
    await foldAll(accountId);
    expect(await stored(keys.reportSeries.account())).toBe(12);
    expect(await stored(keys.reportSeries.team(7))).toBe(12);
  });

  it("writes a reply's reporting event and report memory with the batch, once", async () => {
    const reply: FactWrite = {
      fact: {
        id: `batch-test:${accountId}:reply`,
        account_id: accountId,
        conversation_id: 2,
        contributions: [{ series: keys.reportSeries.account(), at: t, figures: { rt_n: 1, rt_s: 30, rt_b: 30 } }],
        created_at: t,
      },
      reportingEvents: [
        {
          id: 900_000_001,
          name: 'reply_time',
          value: 30,
          value_in_business_hours: 30,
          account_id: accountId,
          inbox_id: 7,
          user_id: 3,
          conversation_id: 2,
          event_start_time: t - 30,
          event_end_time: t,
          created_at: t,
          updated_at: t,
        },
      ],
      conversationState: { account_id: accountId, conversation_id: 2, bot_handoff_at: null, last_resolved_at: t },
    };
    const replyTimes = async () =>
      (await queryReportDays(accountId, keys.reportSeries.account(), dayKey(t), dayKey(t), await readPendingReports(accountId))).get(
        dayKey(t),
      )?.rt_n ?? 0;
    calls.length = 0;
    await recordFacts(accountId, [fact(20), reply]);
    // Two markers and the log (the report memory is apart, in its own partition).
    expect(calls).toEqual(Array(3).fill('PutItemCommand'));
    expect(await replyTimes()).toBe(1);
    expect((await listConversationReportingEvents(accountId, 2)).map((e) => e.name)).toEqual(['reply_time']);
    expect(await getConversationReportState(accountId, 2)).toMatchObject({ last_resolved_at: t });
    // Redelivered with a fresh reporting-event id (ids are drawn again): nothing is added or listed twice.
    await recordFacts(accountId, [fact(20), { ...reply, reportingEvents: [{ ...reply.reportingEvents![0]!, id: 900_000_002 }] }]);
    expect(await replyTimes()).toBe(1);
    expect(await incoming(keys.reportSeries.account())).toBe(13);
    expect(await listConversationReportingEvents(accountId, 2)).toHaveLength(1);
  });

  it('records an event with many series (no transaction bounds it)', async () => {
    const before = await incoming(keys.reportSeries.account());
    const wide: FactWrite = {
      fact: {
        id: `batch-test:${accountId}:wide`,
        account_id: accountId,
        conversation_id: 3,
        contributions: Array.from({ length: 60 }, (_, i) => ({ series: keys.reportSeries.team(7000 + i), at: t, figures: { im: 1 } })),
        created_at: t,
      },
    };
    await recordFacts(accountId, [fact(30), wide, fact(31)]);
    expect(await incoming(keys.reportSeries.account())).toBe(before + 2);
    expect(await incoming(keys.reportSeries.team(7059))).toBe(1);
  });
});

// A series' sums over quarter-hour boundaries read the day items of the span and the hour items of the days a
// boundary cuts; a cut day without a day item has no hour items (both are written by the same additions), so
// they are not read: a series empty on its cut days costs its day Query alone.
describe('report sums read the hour items of cut days with figures only (sumsBetween)', () => {
  const accountId = 810_000_000 + Math.floor(Math.random() * 1_000_000);
  const series = keys.reportSeries.inbox(8);
  const day = Math.floor(Date.now() / 1000 / 86_400) * 86_400;
  const cut = 18 * 3_600 + 1_800; // 18:30 UTC: a local midnight at +5:30
  let recorder: ReturnType<typeof scopedCallRecorder>;
  beforeAll(async () => {
    await runtime();
    recorder = scopedCallRecorder('reportSumsRecorder');
    await recordFacts(accountId, [
      {
        fact: {
          id: `sums-test:${accountId}`,
          account_id: accountId,
          conversation_id: 1,
          contributions: [
            { series, at: day + 3_600 + 1_800, figures: { im: 1 } },
            { series, at: day + 20 * 3_600, figures: { im: 2 } },
          ],
          created_at: day,
        },
      },
    ]);
  });
  // The aggregate reads; the pending logs' (the fold's watermark and one Query) are apart.
  const aggregateReads = <T>(out: { result: T; calls: { command: string; input: string }[] }) => {
    const pending = out.calls.filter((c) => c.input.includes(`RPTP#${accountId}`)).map((c) => c.command);
    expect(pending).toEqual(['GetItemCommand', 'QueryCommand']);
    return { result: out.result, calls: out.calls.filter((c) => !c.input.includes(`RPTP#${accountId}`)) };
  };
  const sums = async (from: number, to: number) => aggregateReads(await recorder.during(() => sumsBetween(accountId, series, [from, to])));
  const hourKeys = (calls: { command: string; input: string }[]) =>
    calls.filter((c) => c.command === 'BatchGetItemCommand').flatMap((c) => [...c.input.matchAll(/"sk":"(H#[^"]+)"/g)].map((m) => m[1]));

  it('reads only the day Query when no cut day has figures', async () => {
    const { result, calls } = await sums(day - 3 * 86_400 + cut, day - 86_400 + cut);
    expect(result[0]!.im ?? 0).toBe(0);
    expect(calls.map((c) => c.command)).toEqual(['QueryCommand']);
  });

  it("reads the hour items of the cut day with figures, exactly: the cut's tail hours and the cut hour", async () => {
    const { result, calls } = await sums(day - 2 * 86_400 + cut, day + cut);
    // 01:30 is before the cut, 20:00 after it.
    expect(result[0]!.im).toBe(1);
    const dk = dayKey(day);
    expect(hourKeys(calls).sort()).toEqual(['18', '19', '20', '21', '22', '23'].map((h) => `H#${h}#${dk}`));
  });

  it('reads consecutive cut days with one Query per hour of day, not an item at a time', async () => {
    const daily = keys.reportSeries.inbox(9);
    // Each of six days: one incoming message at 10:00 (before the cut) and two at 21:00 (after it).
    await recordFacts(accountId, [
      {
        fact: {
          id: `sums-test:${accountId}:daily`,
          account_id: accountId,
          conversation_id: 2,
          contributions: Array.from({ length: 6 }, (_, i) => [
            { series: daily, at: day - (6 - i) * 86_400 + 10 * 3_600, figures: { im: 1 } },
            { series: daily, at: day - (6 - i) * 86_400 + 21 * 3_600, figures: { im: 2 } },
          ]).flat(),
          created_at: day,
        },
      },
    ]);
    const bounds = Array.from({ length: 6 }, (_, i) => day - (6 - i) * 86_400 + cut);
    const { result, calls } = aggregateReads(await recorder.during(() => sumsBetween(accountId, daily, bounds)));
    // From 18:30 to 18:30 the next day: that day's 21:00 and the next day's 10:00.
    expect(result.map((f) => f.im)).toEqual([3, 3, 3, 3, 3]);
    expect(calls.map((c) => c.command)).toEqual(Array(7).fill('QueryCommand'));
  });
});
