import { describe, expect, it } from 'vitest';
import * as keys from '#shared/db/keys.ts';
import { Budget, PurgeInterrupted, runSteps, seriesOfFacts, type Step } from '#shared/domain/purge/plan.ts';

describe('purge plan: budget, step order, what facts and URLs name', () => {
  it('a budget counts deletes, bounds page sizes and throws the injected crash before the delete that passes it', () => {
    const b = new Budget(10, 6);
    expect(b.page()).toBe(10);
    expect(b.page(4)).toBe(4);
    b.take(5);
    expect([b.left, b.deleted, b.spent]).toEqual([5, 5, false]);
    expect(() => b.take(2)).toThrow(PurgeInterrupted);
    expect(b.deleted).toBe(5);
    b.take(1);
    expect(b.page()).toBe(4);
    const spent = new Budget(2);
    spent.take(3);
    expect(spent.spent).toBe(true);
    expect(spent.page()).toBe(1);
  });

  it('runs steps from the checkpoint on, stops at the first unfinished one, and runs none when the budget is spent', async () => {
    const ran: string[] = [];
    const step = (name: string, finishes: boolean, cost = 1): Step<null> => ({
      name,
      run: async (_c, b) => {
        ran.push(name);
        b.take(cost);
        return finishes;
      },
    });
    const steps = [step('a', true), step('b', true), step('c', false), step('d', true)];
    expect(await runSteps(steps, 1, null, new Budget(100))).toBe(2);
    expect(ran).toEqual(['b', 'c']);
    ran.length = 0;
    expect(await runSteps(steps, 3, null, new Budget(100))).toBe(4);
    expect(ran).toEqual(['d']);
    ran.length = 0;
    // Spent after the first step: the second waits for the next chunk.
    expect(await runSteps([step('x', true, 5), step('y', true)], 0, null, new Budget(5))).toBe(1);
    expect(ran).toEqual(['x']);
  });

  it('reads the report series a fact added to, once each, ignoring malformed contributions', () => {
    expect(
      seriesOfFacts([
        { contributions: [{ series: 'A' }, { series: 'I#4' }] },
        { contributions: [{ series: 'A' }, { series: 'L#vip' }, { series: '' }, { series: 3 }] },
        {},
      ]),
    ).toEqual(['A', 'I#4', 'L#vip']);
  });

  it("builds the purge's keys from the account's and inbox's own ids only", () => {
    expect(keys.purgeAccountJob(7)).toEqual({ pk: 'PURGE#ACCOUNT#7', sk: 'PURGE' });
    expect(keys.purgeInboxJob(7, 9)).toEqual({ pk: 'PURGE#INBOX#7#9', sk: 'PURGE' });
    expect(keys.purgeJobIndex('PURGE#INBOX#7#9')).toEqual({ gsi1pk: 'PURGES', gsi1sk: 'PURGE#INBOX#7#9' });
    expect(keys.unlistedContactIndex(7, 42)).toEqual({ gsi2pk: 'ACONTACTS#7', gsi2sk: '000000000042' });
    expect(keys.inboxContactIndex(7, 9, 42, 'src-1')).toEqual({ gsi2pk: 'ICONTACTS#7#9', gsi2sk: '000000000042#src-1' });
    // Account 7's partitions never share a prefix with account 70's.
    expect(keys.inboxContactIndex(70, 9, 42, 's').gsi2pk.startsWith(`${keys.contactInboxesOfInbox(7, 9).gsi2pk}#`)).toBe(false);
  });

  it('charges stale index entries against the chunk without counting them as deletes or crashing on them', () => {
    const b = new Budget(3, 2);
    b.charge();
    b.charge();
    expect(b.deleted).toBe(0);
    expect(b.spent).toBe(false);
    expect(b.page()).toBe(1);
    b.charge();
    expect(b.spent).toBe(true);
    expect(b.deleted).toBe(0);
  });
});
