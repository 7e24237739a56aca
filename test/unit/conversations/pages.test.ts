import { describe, expect, it } from 'vitest';
import { type Combination, PAGE_SIZE, type PageCounter, type PageRead, planPage } from '#shared/domain/conversations/pages.ts';
import { LIST_SHARDS } from '#shared/db/keys.ts';

// Where a list page comes from, decided from the counters alone (no read is made here: the streams are lazy).

const inboxCounters = (inboxes: number, perInbox: number, assignee: (i: number) => number | null = () => null): PageCounter[] =>
  Array.from({ length: inboxes }, (_, i) => ({
    inbox_id: i + 1,
    team_id: null,
    status: 'open',
    assignee_id: assignee(i),
    count: perInbox,
  }));

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

describe('planPage', () => {
  it('reads the account index for the whole account of many inboxes, the one inbox’s partition of a one-inbox account', () => {
    for (const inboxes of [1, 30, 300]) {
      const plan = planPage(1, { counters: inboxCounters(inboxes, 10), totals: new Map([['open', inboxes * 10]]) }, () => true, 1);
      // Both hold whole conversations: one Query of the inbox's partition costs less than one per shard.
      expect(plan.source).toBe(inboxes === 1 ? 'inboxes' : 'account');
      // Two shards of 20 rows each (a shard may hold up to 19 of the page: see the run-out rates below), or the inbox's 11.
      expect(plan.units).toBeLessThanOrEqual(inboxes === 1 ? 1.5 : 5);
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

  it('reads each shard of a status holding less than a page for all of it: the split by display id may be uneven', () => {
    const counters: PageCounter[] = [...quarterTeam, { team_id: null, status: 'resolved', assignee_id: null, count: 7 }];
    const totals = new Map([...quarterTotals, ['resolved', 7], ['resolved#', 7]]);
    const plan = planPage(1, { counters, totals, teamParts: true }, () => true, 1);
    const resolved = plan.reads.filter((r) => r.status === 'resolved');
    expect(resolved).toHaveLength(2);
    // The newest conversations may all be resolved ones, and all 7 in one shard: each read ends its shard.
    for (const r of resolved) expect(r.rows).toBeGreaterThanOrEqual(8);
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

// How often a page's first reads run out before the page is filled (each such partition then costs the page a fourth,
// sequential Query): simulated on accounts whose conversations' activity is independent of where they are kept, as a
// real account's is (a shard is a display id's parity; a team or an inbox says nothing of when a conversation was last
// active).
describe('planPage: first reads that fill the page', () => {
  /** A small seeded generator, so a failure reproduces. */
  const random = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  type Conv = Required<Combination> & { id: number; at: number };

  /** The share of `trials` random accounts of `counters`' shape whose page `page` needs a further read of some partition. */
  function runOutRate(counters: PageCounter[], wanted: (c: Combination) => boolean, page: number, trials: number, seed: number) {
    const next = random(seed);
    const convs: Omit<Conv, 'id' | 'at'>[] = counters.flatMap((c) =>
      Array.from({ length: c.count }, () => ({ ...c, inbox_id: c.inbox_id ?? 0 })),
    );
    const perInbox = counters.every((c) => c.inbox_id !== undefined);
    const plan = planPage(1, { counters, totals: perInbox ? undefined : totalsOf(counters), teamParts: true }, wanted, page);
    const where = (c: Conv, r: PageRead) =>
      c.status === r.status &&
      ('inbox' in r ? c.inbox_id === r.inbox : r.part === (c.team_id !== null ? `T${c.team_id}` : c.id % LIST_SHARDS));
    const ids = convs.map((_, i) => i + 1);
    let runOut = 0;
    for (let t = 0; t < trials; t++) {
      // Display ids and activity each in an order of their own (Fisher–Yates shuffles).
      for (let i = ids.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [ids[i], ids[j]] = [ids[j], ids[i]];
      }
      const all = convs.map((c, i) => ({ ...c, id: ids[i], at: next() })).sort((a, b) => b.at - a.at);
      const readOf = all.map((c) => plan.reads.findIndex((r) => where(c, r)));
      const held = plan.reads.map((_, r) => readOf.filter((x) => x === r).length);
      const taken = plan.reads.map(() => 0);
      let found = 0;
      for (const [i, c] of all.entries()) {
        const r = readOf[i];
        if (r < 0) continue;
        taken[r]++;
        if (wanted(c) && ++found === page * PAGE_SIZE) break;
        // The merge reads this partition's next head before taking the page's next conversation.
        if (taken[r] === plan.reads[r].rows && held[r] > taken[r]) {
          runOut++;
          break;
        }
      }
    }
    return runOut / trials;
  }

  const totalsOf = (counters: PageCounter[]) => {
    const out = new Map<string, number>();
    for (const c of counters) {
      out.set(c.status, (out.get(c.status) ?? 0) + c.count);
      const part = `${c.status}#${c.team_id ?? ''}`;
      out.set(part, (out.get(part) ?? 0) + c.count);
    }
    return out;
  };

  const withResolved: PageCounter[] = [...quarterTeam, { team_id: null, status: 'resolved', assignee_id: null, count: 40 }];
  const agentInboxes = inboxCounters(30, 10, (i) => (i % 3 === 0 ? 7 : null));
  const cases: [string, PageCounter[], (c: Combination) => boolean, number][] = [
    ['the whole account without teams', [{ team_id: null, status: 'open', assignee_id: null, count: 300 }], (c) => c.status === 'open', 1],
    ['the whole account, a quarter in a team', quarterTeam, (c) => c.status === 'open', 1],
    ['the unassigned', quarterTeam, (c) => c.status === 'open' && c.assignee_id === null, 1],
    ['every status', withResolved, () => true, 1],
    ['the third page', quarterTeam, (c) => c.status === 'open', 3],
    ['an agent’s three inboxes of thirty', agentInboxes, (c) => [1, 2, 3].includes(c.inbox_id!), 1],
    ['an agent’s assigned conversations', agentInboxes, (c) => c.assignee_id === 7, 1],
  ];

  it.each(cases)('%s: about 1 page in 100 needs a further read', (_, counters, wanted, page) => {
    expect(runOutRate(counters, wanted, page, 2000, 1)).toBeLessThanOrEqual(0.03);
  });
});
