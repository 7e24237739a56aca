import { describe, expect, it } from 'vitest';
import { planPage, type PageCounter } from '#shared/domain/conversations/pages.ts';

// Where a list page comes from, decided from the counters alone (no read is made here: the streams are lazy).

const inboxCounters = (inboxes: number, perInbox: number, assignee: (i: number) => number | null = () => null): PageCounter[] =>
  Array.from({ length: inboxes }, (_, i) => ({
    inbox_id: i + 1,
    team_id: null,
    status: 'open',
    assignee_id: assignee(i),
    count: perInbox,
  }));

describe('planPage', () => {
  it('reads the account index for the whole account of many inboxes, the one inbox’s partition of a one-inbox account', () => {
    for (const inboxes of [1, 30, 300]) {
      const plan = planPage(1, { counters: inboxCounters(inboxes, 10), totals: new Map([['open', inboxes * 10]]) }, () => true, 1);
      // Both hold whole conversations: one Query of the inbox's partition costs less than one per shard.
      expect(plan.source).toBe(inboxes === 1 ? 'inboxes' : 'account');
      expect(plan.units).toBeLessThanOrEqual(4);
    }
  });

  it('reads the account index from account counters, which name no inbox', () => {
    const counters: PageCounter[] = [
      { team_id: null, status: 'open', assignee_id: null, count: 5000 },
      { team_id: 3, status: 'open', assignee_id: 7, count: 5000 },
      { team_id: null, status: 'resolved', assignee_id: null, count: 90_000 },
    ];
    const plan = planPage(
      1,
      {
        counters,
        totals: new Map([
          ['open', 10_000],
          ['resolved', 90_000],
        ]),
        teamParts: true,
      },
      (c) => c.status === 'open',
      1,
    );
    expect(plan.source).toBe('account');
    // Every open conversation is wanted, half of them in the team's partition: about half a page from each, the
    // team's partition and the two shards of those without a team.
    expect(plan.streams()).toHaveLength(3);
    expect(plan.units).toBeLessThanOrEqual(6);
  });

  // An account of 300 inboxes whose team holds a quarter of its open conversations (the bench's and the integration
  // test's shape), as its account counters say.
  const quarterTeam: PageCounter[] = [
    { team_id: null, status: 'open', assignee_id: null, count: 150 },
    { team_id: null, status: 'open', assignee_id: 7, count: 75 },
    { team_id: 5, status: 'open', assignee_id: null, count: 50 },
    { team_id: 5, status: 'open', assignee_id: 7, count: 25 },
  ];
  const quarterTotals = new Map([
    ['open', 300],
    ['open#', 225],
    ['open#5', 75],
  ]);

  it('reads a team’s page from its own partition of the account index: a page and a row, whatever its share', () => {
    const plan = planPage(1, { counters: quarterTeam, totals: quarterTotals, teamParts: true }, (c) => c.team_id === 5, 1);
    expect(plan.source).toBe('account');
    expect(plan.streams()).toHaveLength(1);
    // 26 whole conversations of the team, not ~120 of the account to find 25 of a quarter.
    expect(plan.units).toBeLessThanOrEqual(4);
    // Before the team partitions: the shards (a team's conversations not changed since may be there) and the team's.
    const older = planPage(1, { counters: quarterTeam, totals: quarterTotals }, (c) => c.team_id === 5, 1);
    expect(older.streams()).toHaveLength(3);
    expect(older.units).toBeGreaterThan(plan.units);
  });

  it('reads the whole account from the shards and each team’s partition holding its status, each sized by its share', () => {
    const plan = planPage(1, { counters: quarterTeam, totals: quarterTotals, teamParts: true }, () => true, 1);
    expect(plan.source).toBe('account');
    expect(plan.streams()).toHaveLength(3);
    // One Query more than the two shards alone (~1 KB estimated a conversation; the copies are smaller).
    expect(plan.units).toBeLessThanOrEqual(6);
    // The team's partition holds none of the unassigned-without-team page's conversations: not read.
    const unteamed = planPage(1, { counters: quarterTeam, totals: quarterTotals, teamParts: true }, (c) => c.team_id === null, 1);
    expect(unteamed.streams()).toHaveLength(2);
  });

  it('reads one inbox’s own partition when it holds a small share of the account', () => {
    const plan = planPage(1, { counters: inboxCounters(300, 10), totals: new Map([['open', 3000]]) }, (c) => c.inbox_id === 17, 1);
    expect(plan.source).toBe('inboxes');
    expect(plan.streams()).toHaveLength(1);
  });

  it('never reads the account index without the account’s totals', () => {
    const plan = planPage(1, { counters: inboxCounters(3, 40) }, () => true, 1);
    expect(plan.source).toBe('inboxes');
    expect(plan.streams()).toHaveLength(3);
  });

  it('reads an inbox’s own partition whether it holds most of the account or a full page among many', () => {
    for (const [held, total] of [
      [60, 70],
      [40, 340],
      [40, 3040],
    ]) {
      const counters = [
        ...inboxCounters(1, held),
        ...inboxCounters(30, (total - held) / 30).map((c) => ({ ...c, inbox_id: c.inbox_id! + 1 })),
      ];
      const plan = planPage(1, { counters, totals: new Map([['open', total]]) }, (c) => c.inbox_id === 1, 1);
      expect(plan.source).toBe('inboxes');
      expect(plan.streams()).toHaveLength(1);
      // 26 whole conversations in one Query: the page needs no read by key.
      expect(plan.units).toBeLessThanOrEqual(4);
    }
  });

  it('reads nothing when the counters say nothing is wanted', () => {
    const plan = planPage(1, { counters: inboxCounters(30, 10), totals: new Map([['open', 300]]) }, (c) => c.assignee_id === 99, 1);
    expect(plan.source).toBe('none');
    expect(plan.streams()).toEqual([]);
  });

  it('reads a later page deeper into the same source', () => {
    const first = planPage(1, { counters: inboxCounters(1, 1000), totals: new Map([['open', 1000]]) }, () => true, 1);
    const fourth = planPage(1, { counters: inboxCounters(1, 1000), totals: new Map([['open', 1000]]) }, () => true, 4);
    expect(fourth.units).toBeGreaterThan(first.units);
  });
});
