import { beforeAll, describe, expect, it } from 'vitest';
import * as keys from '#shared/db/keys.ts';
import { aggregateAdds, foldAggregate, putAggregate } from '#shared/db/repositories/report-aggregates.ts';
import {
  claimFold,
  getFoldState,
  newLogSk,
  putFacts,
  queryLogs,
  readPendingReports,
  recordFacts,
  type FactWrite,
} from '#shared/db/repositories/report-logs.ts';
import { listUnattended, queryReportDays } from '#shared/db/repositories/reports.ts';
import { db, tableName } from '#shared/db/client.ts';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { FOLD_POLICY, foldAccount, foldAll } from '#shared/domain/reports/fold.ts';
import { familySums, readOf, sumsBetween } from '#shared/domain/reports/reader.ts';
import { queryItems } from '#shared/db/repositories/common.ts';
import type { AccountRecord } from '#shared/model/identity.ts';
import { getAccountNow, putAccount } from '#shared/db/repositories/identity.ts';
import { rebuildAccountReports } from '#shared/domain/reports/rebuild.ts';
import { dayKey } from '#shared/model/report-buckets.ts';
import type { UnattendedChange } from '#shared/model/report-logs.ts';
import { runtime } from '../support/runtime.ts';
import { account } from '../unit/support/records.ts';

// Exactly once with plain fact puts, pending logs and folds (DynamoDB Local), each crash point simulated by
// calling the steps the pipeline and the fold take, in their order, and stopping: a redelivered event, a batch
// that dies between its facts and its log, a fold that dies halfway. Each ends with exact figures, and reads
// are exact at every point between (they add the logs the aggregates lack).

const day = Math.floor(Date.now() / 1000 / 86_400) * 86_400;
const t = day + 3_600 + 60; // 01:01 UTC
const A = keys.reportSeries.account();
// A team series beside the account's (the fold leaves out inbox series of inboxes the account no longer has).
const I = keys.reportSeries.team(7);

let n = 0;
const newAccount = () => 820_000_000 + Math.floor(Math.random() * 1_000_000) + n++ * 1_000_000;
const incoming = (accountId: number, id: string, at = t): FactWrite => ({
  fact: {
    id: `fold-test:${accountId}:${id}`,
    account_id: accountId,
    conversation_id: 1,
    contributions: [
      { series: A, at, figures: { im: 1 } },
      { series: I, at, figures: { im: 1 } },
    ],
    created_at: at,
  },
});

/** An account record for the rebuild to mark (it moves an account's aggregates to block items, then marks it). */
const putAccountOf = (id: number, extra: Partial<AccountRecord> = {}) =>
  putAccount(account({ id, name: 'folds', created_at: day, updated_at: day, ...extra }));

/**
 * What a report reads: a day item with the pending figures it lacks, and the first two hours of the day (hour
 * items, or block items once a rebuild moved the account).
 */
async function read(accountId: number, series = A) {
  const pending = await readPendingReports(accountId);
  const dayTotal = (await queryReportDays(accountId, series, dayKey(day), dayKey(day), pending)).get(dayKey(day))?.im ?? 0;
  const layout = readOf((await getAccountNow(accountId)) ?? {}, ['im']);
  const [head] = await sumsBetween(accountId, series, [day, day + 2 * 3_600], layout);
  return { day: dayTotal, head: head?.im ?? 0 };
}
/** The aggregate items alone (what folds wrote). */
const stored = async (accountId: number, series = A) =>
  (await queryReportDays(accountId, series, dayKey(day), dayKey(day))).get(dayKey(day))?.im ?? 0;

/** Runs a fold of account `a` that dies after `updates` updates of `item` (a crash between an item's buckets). */
async function foldDiesAfter(a: number, item: { pk: string; sk: string }, updates: number) {
  let seen = 0;
  db().middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { Key?: { pk?: string; sk?: string } };
      if (input.Key?.pk === item.pk && input.Key.sk === item.sk && ++seen > updates) throw new Error('fold dies');
      return next(args);
    },
    { step: 'initialize', name: 'foldCrash' },
  );
  try {
    await expect(foldAccount(a, { force: true, marginMs: 0, now: Date.now() + 1 })).rejects.toThrow('fold dies');
  } finally {
    db().middlewareStack.remove('foldCrash');
  }
}

describe('report folds: exactly once through every crash point', () => {
  beforeAll(async () => {
    await runtime();
  });

  it('a redelivered event whose log was written adds nothing, before or after the fold', async () => {
    const a = newAccount();
    await recordFacts(a, [incoming(a, '1'), incoming(a, '2')]);
    const again = await recordFacts(a, [incoming(a, '2')]);
    expect(again.logs).toEqual([]);
    expect(await read(a)).toEqual({ day: 2, head: 2 });
    await foldAll(a);
    expect(await recordFacts(a, [incoming(a, '1')])).toMatchObject({ logs: [] });
    expect(await stored(a)).toBe(2);
    expect(await read(a)).toEqual({ day: 2, head: 2 });
  });

  it('a batch that dies between its facts and its log is counted once by its redelivery, and once only after that', async () => {
    const a = newAccount();
    const batch = [incoming(a, '1'), incoming(a, '2'), incoming(a, '3')];
    // The first attempt puts its facts and dies before its log.
    const dead = newLogSk();
    await putFacts(a, batch, dead);
    expect(await read(a)).toEqual({ day: 0, head: 0 });
    // Redelivered (with a new event in the batch): the facts are taken over by this batch's log.
    const redelivered = await recordFacts(a, [...batch, incoming(a, '4')]);
    expect(redelivered.logs.map((l) => l.n)).toEqual([4]);
    expect(await read(a)).toEqual({ day: 4, head: 4 });
    // Once more (that batch died after its log): its log exists, so nothing is taken over.
    expect((await recordFacts(a, batch)).logs).toEqual([]);
    await foldAll(a);
    expect(await stored(a)).toBe(4);
    // A fold with the policy's margin just after one without (seeding's): its margin ends before the watermark, and
    // nothing is pending.
    expect(await foldAccount(a, { force: true })).toMatchObject({ folded: false });
    expect(await stored(a, I)).toBe(4);
    // The rebuild sums the facts: the same.
    await putAccountOf(a);
    await rebuildAccountReports(a);
    expect(await read(a)).toEqual({ day: 4, head: 4 });
  });

  it('a fold that dies halfway is resumed with the same logs; reads are exact meanwhile; a retried item is skipped', async () => {
    const a = newAccount();
    await recordFacts(a, [incoming(a, '1'), incoming(a, '2')]);
    await recordFacts(a, [incoming(a, '3')]);
    // The fold's steps: its state, its logs, the claim, then half of its item updates, and it dies.
    const state = await getFoldState(a);
    const logs = await queryLogs(a, state.wm, undefined, { consistent: true });
    const end = logs.at(-1)!.sk;
    expect(await claimFold(a, state, end)).toBe(true);
    // One fold at a time: a second claimer on the same state is refused.
    expect(await claimFold(a, state, end)).toBe(false);
    const adds = [...aggregateAdds(a, { contributions: logs.flatMap((l) => l.contributions) }).values()];
    expect(adds).toHaveLength(4);
    const half = adds.filter((x) => x.series === A);
    for (const entry of half) expect(await foldAggregate(a, entry, end)).toBe(true);
    // Account items folded (marked), inbox items not: both read exact.
    expect(await stored(a)).toBe(3);
    expect(await stored(a, I)).toBe(0);
    expect(await read(a)).toEqual({ day: 3, head: 3 });
    expect(await read(a, I)).toEqual({ day: 3, head: 3 });
    // More traffic meanwhile: a new log past the fold's end.
    await recordFacts(a, [incoming(a, '4')]);
    expect(await read(a)).toEqual({ day: 4, head: 4 });
    // While the claim is fresh nobody else folds; once stale, the next fold resumes it with the same end.
    expect(await foldAccount(a, { force: true, marginMs: 0 })).toMatchObject({ folded: false });
    const resumed = await foldAccount(a, { force: true, marginMs: 0, now: Date.now() + FOLD_POLICY.leaseMs + 1_000 });
    // The account's two items were written before the crash: skipped.
    expect(resumed).toMatchObject({ folded: true, logs: 2, facts: 3, items: 2 });
    expect(await getFoldState(a)).toEqual({ wm: end });
    expect(await foldAggregate(a, half[0]!, end)).toBe(false);
    expect(await stored(a)).toBe(3);
    expect(await read(a)).toEqual({ day: 4, head: 4 });
    expect(await read(a, I)).toEqual({ day: 4, head: 4 });
    await foldAll(a);
    expect(await stored(a)).toBe(4);
    expect(await stored(a, I)).toBe(4);
    expect(await read(a, I)).toEqual({ day: 4, head: 4 });
  });

  it('folds when the policy says: enough facts pending, or the oldest log old enough, and never a log younger than the margin', async () => {
    const a = newAccount();
    await recordFacts(a, [incoming(a, '1')]);
    expect(await foldAccount(a)).toMatchObject({ folded: false });
    expect(await foldAccount(a, { now: Date.now() + FOLD_POLICY.marginMs + 1_000 })).toMatchObject({ folded: false });
    expect(await foldAccount(a, { now: Date.now() + FOLD_POLICY.ageMs + 1_000 })).toMatchObject({ folded: true, facts: 1 });
    expect(await stored(a)).toBe(1);
  });

  it("applies unattended changes: live reads see the pending ones at once, the fold writes each conversation's net state", async () => {
    const a = newAccount();
    const change = (conversation_id: number, from: number | null, to: number | null, team_id: number | null = null): UnattendedChange => ({
      conversation_id,
      from,
      from_team: null,
      to,
      team_id,
    });
    await recordFacts(a, [], [change(1, null, 5, 2), change(2, null, 0)]);
    await recordFacts(a, [], [change(1, 5, null), change(3, null, 6)]);
    const live = async () =>
      (await listUnattended(a, await readPendingReports(a))).map((u) => [u.conversation_id, u.assignee_id, u.team_id]).sort();
    expect(await live()).toEqual([
      [2, 0, null],
      [3, 6, null],
    ]);
    expect(await listUnattended(a)).toEqual([]);
    // Conversation 1 waited and stopped within the fold: no write for it; 2 and 3 are put.
    const [fold] = await foldAll(a);
    expect(fold).toMatchObject({ unattended: 2 });
    expect((await listUnattended(a)).map((u) => u.conversation_id).sort()).toEqual([2, 3]);
    // Conversation 2 assigned to 9 with team 4, 3 answered: the old item goes, the new one comes.
    await recordFacts(a, [], [change(2, 0, 9, 4), change(3, 6, null)]);
    expect(await live()).toEqual([[2, 9, 4]]);
    await foldAll(a);
    expect(await listUnattended(a)).toEqual([{ conversation_id: 2, assignee_id: 9, team_id: 4 }]);
    expect(await live()).toEqual([[2, 9, 4]]);
  });

  it('an account recorded before logs keeps its figures: its facts count as recorded, folds add onto its items', async () => {
    const a = newAccount();
    // What the transactional pipeline left: a fact without a log, and the aggregate items it added to.
    const old = incoming(a, 'old');
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.reportFact(a, 1, old.fact.id), type: 'report_fact', ...old.fact },
      }),
    );
    for (const entry of aggregateAdds(a, old.fact).values())
      await putAggregate(entry.key, {
        type: entry.kind === 'day' ? 'report_day' : 'report_hour',
        account_id: a,
        series: entry.series,
        ...Object.fromEntries(entry.values),
      });
    expect(await read(a)).toEqual({ day: 1, head: 1 });
    // Redelivered to the new pipeline: counted already.
    expect((await recordFacts(a, [old, incoming(a, 'new')])).logs.map((l) => l.n)).toEqual([1]);
    expect(await read(a)).toEqual({ day: 2, head: 2 });
    await foldAll(a);
    expect(await stored(a)).toBe(2);
    expect(await read(a)).toEqual({ day: 2, head: 2 });
  });

  it('the rebuild agrees with folded and pending logs alike, and moves the watermark past them', async () => {
    const a = newAccount();
    await recordFacts(a, [incoming(a, '1'), incoming(a, '2')]);
    await foldAll(a);
    await recordFacts(a, [incoming(a, '3')], [{ conversation_id: 8, from: null, from_team: null, to: 3, team_id: null }]);
    expect(await read(a)).toEqual({ day: 3, head: 3 });
    await putAccountOf(a);
    const result = await rebuildAccountReports(a);
    expect(result.facts).toBe(3);
    expect(await stored(a)).toBe(3);
    expect(await read(a)).toEqual({ day: 3, head: 3 });
    expect((await readPendingReports(a)).logs).toEqual([]);
    expect((await listUnattended(a)).map((u) => u.conversation_id)).toEqual([8]);
  });

  it('a grouped item too large for one update is folded by member bucket; a fold dying between buckets reads exact', async () => {
    const a = newAccount();
    await putAccountOf(a, { report_blocks: true, report_groups: true });
    // Eighty teams with four counts each on one day: 320 attributes of one grouped day item in one fold.
    const teams = Array.from({ length: 80 }, (_, i) => keys.reportSeries.team(100 + i));
    const figures = { cc: 1, fr_n: 1, fr_s: 60, rs_n: 1, rs_s: 600, rt_n: 1, rt_s: 30 };
    await recordFacts(a, [
      {
        fact: {
          id: `fold-test:${a}:wide`,
          account_id: a,
          conversation_id: 1,
          contributions: teams.map((series) => ({ series, at: t, figures })),
          created_at: t,
        },
      },
    ]);
    const account = (await getAccountNow(a))!;
    const range = { since: day, until: day + 86_400 };
    const rows = () => familySums(account, teams, range, ['cc', 'fr_s', 'rt_s']);
    const expected = teams.map(() => ({ cc: 1, fr_n: 1, fr_s: 60, rs_n: 1, rs_s: 600, rt_n: 1, rt_s: 30 }));
    expect(await rows()).toEqual(expected);
    // The fold dies after three member-bucket updates of the grouped day item.
    const dayItem = keys.reportGroupDay(a, 'T', 'a', dayKey(day));
    await foldDiesAfter(a, dayItem, 3);
    const item = (
      await queryItems({ KeyConditionExpression: 'pk = :p AND sk = :s', ExpressionAttributeValues: { ':p': dayItem.pk, ':s': dayItem.sk } })
    )[0]!;
    // Some members folded (their bucket marked), the others not: each read exact.
    expect(Object.keys(item).filter((k) => k.startsWith('fw_'))).toHaveLength(3);
    expect(item.fw).toBeUndefined();
    expect(await rows()).toEqual(expected);
    // Resumed once the claim is stale: the buckets written are skipped, the rest added once.
    await foldAccount(a, { force: true, marginMs: 0, now: Date.now() + FOLD_POLICY.leaseMs + 1_000 });
    expect((await readPendingReports(a)).logs).toEqual([]);
    expect(await rows()).toEqual(expected);
    const folded = (
      await queryItems({ KeyConditionExpression: 'pk = :p AND sk = :s', ExpressionAttributeValues: { ':p': dayItem.pk, ':s': dayItem.sk } })
    )[0]!;
    expect(teams.map((s) => folded[`${s.slice(2)}|cc`])).toEqual(teams.map(() => 1));
  });

  it('a series block item too large for one update is folded by field bucket; a fold dying between buckets reads exact', async () => {
    const a = newAccount();
    await putAccountOf(a, { report_blocks: true });
    // Every count in every quarter of one six-hour block, with a label's counts of 40 inboxes: one block item of
    // (6 + 40) × 24 = 1,104 counters in one fold (a seeded account, or a fold after a long pause).
    const label = keys.reportSeries.label('wide');
    const block = day + 6 * 3_600;
    const counts = {
      cc: 1,
      im: 2,
      om: 3,
      br: 1,
      bh: 1,
      cs: 1,
      ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`li${i + 1}`, 1])),
    };
    await recordFacts(a, [
      {
        fact: {
          id: `fold-test:${a}:block`,
          account_id: a,
          conversation_id: 1,
          contributions: Array.from({ length: 24 }, (_, q) => ({ series: label, at: block + q * 900, figures: counts })),
          created_at: block,
        },
      },
    ]);
    const read = { blocks: true, groups: ['n'] as const };
    // Cuts inside the block: the head of the day up to 09:00 (12 quarters) and up to 11:45 (23).
    const sums = () => sumsBetween(a, label, [day, block + 3 * 3_600, block + 5 * 3_600 + 2_700], read);
    const expected = [12, 11].map((n) => Object.fromEntries(Object.entries(counts).map(([f, v]) => [f, v * n])));
    expect(await sums()).toEqual(expected);
    const blockItem = keys.reportPart(a, label, keys.reportBlockLane('n', 1), dayKey(day));
    await foldDiesAfter(a, blockItem, 5);
    const stored = async () =>
      (
        await queryItems({
          KeyConditionExpression: 'pk = :p AND sk = :s',
          ExpressionAttributeValues: { ':p': blockItem.pk, ':s': blockItem.sk },
        })
      )[0]!;
    // Five buckets of fields written (marked), the others not: every read exact.
    expect(Object.keys(await stored()).filter((k) => k.startsWith('fw_'))).toHaveLength(5);
    expect(await sums()).toEqual(expected);
    // Resumed once the claim is stale: the buckets written are skipped, the rest added once.
    await foldAccount(a, { force: true, marginMs: 0, now: Date.now() + FOLD_POLICY.leaseMs + 1_000 });
    expect((await readPendingReports(a)).logs).toEqual([]);
    expect(await sums()).toEqual(expected);
    const folded = await stored();
    expect([folded.cc_0, folded.om_23, folded.li40_11]).toEqual([1, 3, 1]);
  });
});
