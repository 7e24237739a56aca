import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { getConversationReportState, readPendingReports, recordFacts, type FactWrite } from '#shared/db/repositories/report-logs.ts';
import { listConversationReportingEvents, queryReportDays } from '#shared/db/repositories/reports.ts';
import { foldAll } from '#shared/domain/reports/fold.ts';
import { dayKey, groupsOf, type Field, type Figures } from '#shared/model/report-buckets.ts';
import { queryItems } from '#shared/db/repositories/common.ts';
import { familySums, readOf, sumsBetween } from '#shared/domain/reports/reader.ts';
import { rebuildAccountReports } from '#shared/domain/reports/rebuild.ts';
import { getAccountNow, putAccount } from '#shared/db/repositories/identity.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { scopedCallRecorder } from '../support/calls.ts';
import { runtime } from '../support/runtime.ts';
import { account } from '../unit/support/records.ts';

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

/** How an account without `report_blocks` is read (its hour items hold every figure). */
const HOURS = { blocks: false, groups: ['n'] } as const;

/** The aggregate reads of a recorded read; the pending logs' (the fold's watermark and one Query) are apart. */
const aggregateReads =
  (accountId: number) =>
  <T>(out: { result: T; calls: { command: string; input: string }[] }) => {
    const pending = out.calls.filter((c) => c.input.includes(`RPTP#${accountId}`)).map((c) => c.command);
    expect(pending).toEqual(['GetItemCommand', 'QueryCommand']);
    return { result: out.result, calls: out.calls.filter((c) => !c.input.includes(`RPTP#${accountId}`)) };
  };

/** An account record as the platform writes one. */
const accountOf = (id: number, at: number, extra: Partial<AccountRecord> = {}): AccountRecord =>
  account({ id, name: 'reports', created_at: at, updated_at: at, ...extra });

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
  const aggregates = aggregateReads(accountId);
  const sums = async (from: number, to: number) =>
    aggregates(await recorder.during(() => sumsBetween(accountId, series, [from, to], HOURS)));
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
    const { result, calls } = aggregates(await recorder.during(() => sumsBetween(accountId, daily, bounds, HOURS)));
    // From 18:30 to 18:30 the next day: that day's 21:00 and the next day's 10:00.
    expect(result.map((f) => f.im)).toEqual([3, 3, 3, 3, 3]);
    expect(calls.map((c) => c.command)).toEqual(Array(7).fill('QueryCommand'));
  });
});

// Accounts with `report_blocks` (made since, or rebuilt) keep block items: per series, field group and six UTC hours,
// so a cut day reads the groups a route needs, at most two blocks each, and consecutive cut days one Query per block.
describe('report sums of an account with block items read the groups asked, a block or two per cut day', () => {
  const accountId = 820_000_000 + Math.floor(Math.random() * 1_000_000);
  const series = keys.reportSeries.account();
  const day = Math.floor(Date.now() / 1000 / 86_400) * 86_400;
  const cut = 18 * 3_600 + 1_800; // 18:30 UTC: a local midnight at +5:30
  let recorder: ReturnType<typeof scopedCallRecorder>;
  const read = (fields: Field[]) => ({ blocks: true, groups: groupsOf(fields) });
  const aggregates = aggregateReads(accountId);
  const skOf = (calls: { command: string; input: string }[]) =>
    calls.flatMap((c) => [...c.input.matchAll(/"(?:sk|:a|:b)":"((?:B|H)#[^"]+)"/g)].map((m) => m[1])).sort();
  beforeAll(async () => {
    await runtime();
    recorder = scopedCallRecorder('reportBlocksRecorder');
    // Six days: at 10:00 a conversation and its first response (60 s); at 21:00 two incoming messages, a reply time
    // (30 s) and a conversation; on the last day, the same.
    // The fold writes the layout its account has.
    await putAccount(accountOf(accountId, day - 10 * 86_400, { report_blocks: true }));
    await recordFacts(accountId, [
      {
        fact: {
          id: `blocks-test:${accountId}`,
          account_id: accountId,
          conversation_id: 1,
          contributions: Array.from({ length: 7 }, (_, i) => [
            { series, at: day - (6 - i) * 86_400 + 10 * 3_600, figures: { cc: 1, fr_n: 1, fr_s: 60, fr_b: 60 } },
            { series, at: day - (6 - i) * 86_400 + 21 * 3_600, figures: { im: 2, cc: 1, rt_n: 1, rt_s: 30, rt_b: 30 } },
          ]).flat(),
          created_at: day,
        },
      },
    ]);
    await foldAll(accountId);
  });

  it('writes a day item and one block item per field group and six hours, nothing hourly', async () => {
    const { result, calls } = aggregates(
      await recorder.during(() => sumsBetween(accountId, series, [day - 86_400, day + 86_400], read(['cc']))),
    );
    expect(result[0]).toEqual({ cc: 4, im: 4 });
    expect(calls.map((c) => c.command)).toEqual(['QueryCommand']);
    const items = await queryItems({
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': keys.reportSeriesPartition(accountId, series) },
    });
    const dk = dayKey(day);
    expect(
      items
        .filter((i) => String(i.sk).endsWith(dk))
        .map((i) => i.sk)
        .sort(),
    ).toEqual([`B#f#1#${dk}`, `B#n#1#${dk}`, `B#n#3#${dk}`, `B#t#3#${dk}`, `D#${dk}`].sort());
    // 10:00 is quarter 16 of block 1 (06:00–12:00); 21:00 quarter 12 of block 3.
    expect(items.find((i) => i.sk === `B#f#1#${dk}`)).toMatchObject({ type: 'report_block', fr_n_16: 1, fr_s_16: 60, fr_b_16: 60 });
    expect(items.find((i) => i.sk === `B#n#3#${dk}`)).toMatchObject({ im_12: 2, cc_12: 1 });
  });

  it("reads the cut days' last block of the group asked, exactly (the day less its tail)", async () => {
    const { result, calls } = aggregates(
      await recorder.during(() => sumsBetween(accountId, series, [day - 86_400 + cut, day + cut], read(['cc', 'im']))),
    );
    // From 18:30 the day before to 18:30: its 21:00 (cc 1, im 2) and this day's 10:00 (cc 1).
    expect(result[0]).toEqual({ cc: 2, im: 2 });
    // The day items, and block 3 of the counts of both cut days (one Query: they are neighbours).
    expect(calls.map((c) => c.command)).toEqual(['QueryCommand', 'QueryCommand']);
    expect(skOf(calls)).toEqual([`B#n#3#${dayKey(day - 86_400)}`, `B#n#3#${dayKey(day)}`].sort());
  });

  it('reads the groups of every figure asked, and those only', async () => {
    const { result, calls } = aggregates(
      await recorder.during(() => sumsBetween(accountId, series, [day - 86_400 + cut, day + cut], read(['fr_n', 'fr_s', 'rt_n', 'rt_s']))),
    );
    expect(result[0]).toEqual({ fr_n: 1, fr_s: 60, fr_b: 60, rt_n: 1, rt_s: 30, rt_b: 30 });
    expect(skOf(calls)).toEqual(
      [`B#f#3#${dayKey(day - 86_400)}`, `B#f#3#${dayKey(day)}`, `B#t#3#${dayKey(day - 86_400)}`, `B#t#3#${dayKey(day)}`].sort(),
    );
  });

  it('reads a cut day far from the others by BatchGet, the block of each group asked', async () => {
    const { result, calls } = aggregates(
      await recorder.during(() => sumsBetween(accountId, series, [day - 30 * 86_400, day + cut], read(['cc', 'rs_n', 'rt_n']))),
    );
    expect(result[0]).toEqual({ cc: 13, im: 12, rt_n: 6, rt_s: 180, rt_b: 180 });
    expect(calls.map((c) => c.command)).toEqual(['QueryCommand', 'BatchGetItemCommand']);
    expect(skOf(calls)).toEqual([`B#n#3#${dayKey(day)}`, `B#r#3#${dayKey(day)}`, `B#t#3#${dayKey(day)}`]);
  });

  it('reads consecutive cut days with one Query per block of the group, whatever the number of days', async () => {
    const bounds = Array.from({ length: 7 }, (_, i) => day - (6 - i) * 86_400 + cut);
    const { result, calls } = aggregates(await recorder.during(() => sumsBetween(accountId, series, bounds, read(['fr_n', 'fr_s']))));
    expect(result.map((f) => f.fr_n)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(result.map((f) => f.fr_s)).toEqual([60, 60, 60, 60, 60, 60]);
    // The day items, and block 3 of the first-response group across the days.
    expect(calls.map((c) => c.command)).toEqual(['QueryCommand', 'QueryCommand']);
  });
});

// An account made before block items keeps hour items (and is read through them) until its rebuild, which writes
// the blocks, marks the account and removes the hour items: the same figures before and after, read either way.
describe('the rebuild moves an account of hour items to block items, figures unchanged', () => {
  const accountId = 830_000_000 + Math.floor(Math.random() * 1_000_000);
  const series = keys.reportSeries.account();
  const day = Math.floor(Date.now() / 1000 / 86_400) * 86_400;
  const cut = 18 * 3_600 + 1_800;
  const account = accountOf(accountId, day - 10 * 86_400);
  const fields: Field[] = ['cc', 'im', 'fr_n', 'fr_s', 'rs_n'];
  const bounds = Array.from({ length: 5 }, (_, i) => day - (4 - i) * 86_400 + cut);
  const partition = async () =>
    (
      await queryItems({
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': keys.reportSeriesPartition(accountId, series) },
      })
    ).map((i) => String(i.sk));

  it('reads the hour items before, the block items after, the same sums', async () => {
    await runtime();
    await putAccount(account);
    await recordFacts(
      accountId,
      Array.from({ length: 5 }, (_, i) => ({
        fact: {
          id: `rebuild-blocks:${accountId}:${i}`,
          account_id: accountId,
          conversation_id: i + 1,
          contributions: [
            { series, at: day - (4 - i) * 86_400 + 5 * 3_600, figures: { cc: 1, im: 1 } },
            { series, at: day - (4 - i) * 86_400 + 19 * 3_600 + 2_700, figures: { im: 3, fr_n: 1, fr_s: 40 + i, fr_b: 0 } },
            { series, at: day - (4 - i) * 86_400 + 23 * 3_600, figures: { rs_n: 1, rs_s: 10, rs_b: 0 } },
          ],
          created_at: day,
        },
      })),
    );
    await foldAll(accountId);
    expect((await partition()).some((sk) => sk.startsWith('H#'))).toBe(true);
    const before = await sumsBetween(accountId, series, bounds, readOf(account, fields));
    expect(before[0]).toMatchObject({ cc: 1, im: 4, fr_n: 1, fr_s: 40, rs_n: 1 });

    await rebuildAccountReports(accountId);
    const after = (await getAccountNow(accountId))!;
    expect(after.report_blocks).toBe(true);
    const sks = await partition();
    expect(sks.filter((sk) => sk.startsWith('H#'))).toEqual([]);
    expect(sks.filter((sk) => sk.startsWith('B#')).length).toBeGreaterThan(0);
    expect(await sumsBetween(accountId, series, bounds, readOf(after, fields))).toEqual(before);
  });
});

// Accounts with `report_groups` (made since, or rebuilt) keep grouped items too: per family of series (agents,
// inboxes, teams, labels, channel types), member group and UTC day one item holding every member's figures, and one
// per six-hour block. The per-row routes read those (`familySums`): a Query per member group for the range's days
// and one BatchGet for the cut days' blocks, whatever the number of members, with the pending logs; the same sums
// as each series read alone.
describe('per-row sums of an account with grouped items read one Query per member group and one BatchGet', () => {
  const accountId = 840_000_000 + Math.floor(Math.random() * 1_000_000);
  const day = Math.floor(Date.now() / 1000 / 86_400) * 86_400;
  const cut = 18 * 3_600 + 1_800; // 18:30 UTC: a local midnight at +5:30
  const account = accountOf(accountId, day - 40 * 86_400, { report_blocks: true, report_groups: true });
  // Teams: the fold leaves out inbox series of inboxes the account does not list, and this one lists none.
  const teams = [11, 12, 13].map((i) => keys.reportSeries.team(i));
  const idle = keys.reportSeries.team(14);
  const rows: Field[] = ['cc', 'fr_n', 'fr_s', 'rs_n', 'rs_s', 'rt_n', 'rt_s'];
  const range = { since: day - 6 * 86_400 + cut, until: day + cut };
  let recorder: ReturnType<typeof scopedCallRecorder>;
  const aggregates = aggregateReads(accountId);
  /** Each team's days: a conversation and its first response at 10:00, a reply time, a resolution and messages at 21:00. */
  const facts = (tag: string, days: number[]) =>
    teams.map((series, n) => ({
      fact: {
        id: `groups-test:${accountId}:${tag}:${n}`,
        account_id: accountId,
        conversation_id: n + 1,
        contributions: days.flatMap((d) => [
          { series, at: d + 10 * 3_600, figures: { cc: 1, fr_n: 1, fr_s: 60 * (n + 1), fr_b: 30 } },
          { series, at: d + 21 * 3_600, figures: { im: 2, om: n + 1, rt_n: 1, rt_s: 30, rs_n: 1, rs_s: 600, st_open: 1 } },
        ]),
        created_at: day,
      },
    }));
  /** The same sums read series by series (the path accounts without grouped items take). */
  /** The figures asked (each path returns those of the groups it read). */
  const pick = (list: Figures[], fields: Field[]) =>
    list.map((f) => Object.fromEntries(fields.filter((k) => f[k] !== undefined).map((k) => [k, f[k]])));
  const bySeries = async (fields: Field[], series = [...teams, idle], over = range) =>
    pick(await familySums({ id: accountId, report_blocks: true }, series, over, fields), fields);

  beforeAll(async () => {
    await runtime();
    recorder = scopedCallRecorder('reportGroupsRecorder');
    await putAccount(account);
    await recordFacts(
      accountId,
      facts(
        'folded',
        Array.from({ length: 7 }, (_, i) => day - (6 - i) * 86_400),
      ),
    );
    await foldAll(accountId);
  });

  it('the fold writes per member group a day item and a block item holding every member, by member and figure', async () => {
    const items = await queryItems({
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': keys.reportGroupPartition(accountId, 'T') },
    });
    const dk = dayKey(day);
    expect(
      items
        .filter((i) => String(i.sk).endsWith(dk))
        .map((i) => i.sk)
        .sort(),
    ).toEqual(
      [
        `B#a#1#${dk}`,
        `B#a#3#${dk}`,
        `B#s#1#${dk}`,
        `B#s#3#${dk}`,
        `B#b#1#${dk}`,
        `B#m#3#${dk}`,
        `B#x#3#${dk}`,
        `D#a#${dk}`,
        `D#s#${dk}`,
        `D#b#${dk}`,
        `D#m#${dk}`,
        `D#x#${dk}`,
      ].sort(),
    );
    expect(items.find((i) => i.sk === `D#a#${dk}`)).toMatchObject({ type: 'report_group', '11|cc': 1, '12|fr_n': 1, '13|rs_n': 1 });
    expect(items.find((i) => i.sk === `D#s#${dk}`)).toMatchObject({ '11|fr_s': 60, '13|fr_s': 180, '12|rs_s': 600 });
    // 21:00 is quarter 12 of block 3 (18:00–24:00).
    expect(items.find((i) => i.sk === `B#m#3#${dk}`)).toMatchObject({ '11|im_12': 2, '13|om_12': 3 });
  });

  it('reads the day items of the group asked and the last block of both cut days, exactly as series by series', async () => {
    const { result, calls } = aggregates(await recorder.during(() => familySums(account, [...teams, idle], range, rows)));
    // Six days from 18:30: each day's 21:00 and the next day's 10:00.
    expect(result[0]).toEqual({ cc: 6, fr_n: 6, fr_s: 360, rs_n: 6, rs_s: 3_600, rt_n: 6, rt_s: 180 });
    expect(result[2]).toMatchObject({ fr_s: 1_080 });
    expect(result[3]).toEqual({});
    expect(pick(result, rows)).toEqual(await bySeries(rows));
    // The counts' and the seconds' day items (a Query each), and their last block of both cut days (one BatchGet).
    expect(calls.map((c) => c.command)).toEqual(['QueryCommand', 'QueryCommand', 'BatchGetItemCommand']);
    expect(calls.every((c) => c.input.includes(keys.reportGroupPartition(accountId, 'T')))).toBe(true);
    const sks = calls.flatMap((c) => [...c.input.matchAll(/"(?:sk|:a|:b)":"([^"]+)"/g)].map((m) => m[1])).sort();
    const [first, last] = [dayKey(day - 6 * 86_400), dayKey(day)];
    expect(sks).toEqual(
      [
        `B#a#3#${first}`,
        `B#a#3#${last}`,
        `B#s#3#${first}`,
        `B#s#3#${last}`,
        `D#a#${first}`,
        `D#a#${last}`,
        `D#s#${first}`,
        `D#s#${last}`,
      ].sort(),
    );
  });

  it('reads the groups of every figure asked (business seconds, messages, the rest), and whole UTC days without blocks', async () => {
    const fields: Field[] = ['cc', 'fr_n', 'fr_b', 'om', 'st_open'];
    const { result, calls } = aggregates(await recorder.during(() => familySums(account, teams, range, fields)));
    expect(pick(result, fields)).toEqual(await bySeries(fields, teams));
    expect(result[1]).toMatchObject({ cc: 6, fr_b: 180, om: 12, st_open: 6 });
    // The counts, business seconds, messages and the rest: a Query each, and one BatchGet of their blocks.
    expect(calls.map((c) => c.command).sort()).toEqual([...Array(4).fill('QueryCommand'), 'BatchGetItemCommand'].sort());
    const whole = aggregates(await recorder.during(() => familySums(account, teams, { since: day - 6 * 86_400, until: day }, ['om'])));
    expect(whole.result.map((f) => f.om)).toEqual([6, 12, 18]);
    expect(whole.calls.map((c) => c.command)).toEqual(['QueryCommand']);
  });

  it('reads a range within one UTC day (both ends cut it) with each block once', async () => {
    const within = { since: day - 86_400 + 9 * 3_600, until: day - 86_400 + 21 * 3_600 + 900 };
    const fields: Field[] = ['cc', 'om'];
    const { result, calls } = aggregates(await recorder.during(() => familySums(account, teams, within, fields)));
    expect(result.map((f) => [f.cc, f.om])).toEqual([
      [1, 1],
      [1, 2],
      [1, 3],
    ]);
    expect(pick(result, fields)).toEqual(await bySeries(fields, teams, within));
    const batch = calls.find((c) => c.command === 'BatchGetItemCommand')!;
    const sks = [...batch.input.matchAll(/"sk":"([^"]+)"/g)].map((m) => m[1]);
    expect(sks.length).toBe(new Set(sks).size);
  });

  it('adds the pending logs, per member, and agrees with the series once more after their fold', async () => {
    await recordFacts(accountId, facts('pending', [day]));
    const pending = aggregates(await recorder.during(() => familySums(account, teams, range, rows)));
    expect(pending.result[0]).toMatchObject({ cc: 7, fr_n: 7 });
    expect(pick(pending.result, rows)).toEqual(await bySeries(rows, teams));
    await foldAll(accountId);
    expect(await familySums(account, teams, range, rows)).toEqual(pending.result);
  });
});
