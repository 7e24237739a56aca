import { describe, expect, it } from 'vitest';
import type { CountsRow } from '../../../bench/counts.ts';
import type { BenchResults, RouteResult } from '../../../bench/results.ts';
import {
  ROUTES,
  SUMMARY_END,
  SUMMARY_START,
  compare,
  excess,
  headlineFigures,
  replaceSummary,
  summaryMarkdown,
  worstRoutes,
} from '../../../bench/summary.ts';

// The summary at the top of BENCHMARKS.md, from two small results files: the headline figures, the order of
// the worst lists, and what counts as moved between runs (capacity as it is, times against the run-wide
// factor, routes and bundles one run has and the other has not).

const OLD_AVATARS = 'GET /avatars/{object}';
const NEW_AVATARS = 'GET /rails/active_storage/blobs/redirect/{signed_id}/{filename}';

const route = (name: string, p50: number, rcu: number, wcu: number, tail?: { p95?: number; p99?: number }): RouteResult => ({
  route: name,
  iterations: 30,
  endpoint: { p50, p99: tail?.p99 ?? p50 * 2, ...(tail?.p95 !== undefined ? { p95: tail.p95 } : {}) },
  dynamo: { p50: 0, p99: 0, calls: [] },
  raw: null,
  rcu,
  wcu,
});

const failed = (name: string): RouteResult => ({
  route: name,
  iterations: 0,
  // As results.json holds them: JSON writes the bench's NaN as null.
  endpoint: { p50: null, p95: null, p99: null } as unknown as RouteResult['endpoint'],
  dynamo: { p50: 0, p99: 0, calls: [] },
  raw: null,
  rcu: null as unknown as number,
  wcu: null as unknown as number,
  error: 'GET /broken answered 500: boom',
});

const countsRow = (conversations: number, seal: number, metaQ: number): CountsRow =>
  ({
    conversations,
    counterItems: 10,
    meta: [{ query: '', caller: 'administrator', rcu: 1, byCommand: { Query: 1 }, p50: 2, calls: ['Query'] }],
    q: { query: '?q=refund', caller: 'administrator', matches: 1429, rcu: metaQ, byCommand: {}, p50: 30, calls: [] },
    qRare: { query: '?q=parcel', caller: 'administrator', matches: 4, rcu: 4.5, byCommand: {}, p50: 7, calls: [] },
    qRoutes: [{ route: 'conversations?q=refund', matches: 1429, rcu: metaQ * 2, byCommand: {}, p50: 60 }],
    index: { segments: 2, packs: 1, packed: 150, tail: 50, wcuPerMessage: seal },
    loadSeconds: 1,
  }) as CountsRow;

const results = (date: string, routes: RouteResult[], extra: Partial<BenchResults>): BenchResults => ({
  meta: { date, machine: '2 cores' },
  iterations: 30,
  routes,
  missing: [],
  ...extra,
});

const previous = results(
  '2026-11-24',
  [
    route(ROUTES.message, 10, 2.5, 5.03, { p99: 25 }),
    route(ROUTES.conversationList, 50, 79, 0),
    route(OLD_AVATARS, 2, 0, 0),
    route('GET /slow', 10, 1, 0),
    route('GET /quick', 10, 1, 0),
    route('GET /steady', 4, 1, 0),
    route('POST /heavy', 5, 1, 10),
    route('POST /x', 6, 1, 4.03),
    route('DELETE /broken', 3, 0.5, 2),
  ],
  {
    counts: { sizes: [10, 10_000], rows: [countsRow(10, 0, 1), countsRow(10_000, 1.65, 18.5)] },
    reportWrites: { conversations: 10, alone: { incoming: 11, reply: 30, mean: 20.5 }, batched: { incoming: 4.6, reply: 8.4, mean: 6.5 } },
    pipeline: { dispatch: { events: 600, seconds: 1.5, perSecond: 400, cpuMsPerEvent: 2, dynamoCallsPerEvent: 1.1 } },
    bundles: {
      functions: [
        { name: 'a', kib: 400, coldImportMs: 40 },
        { name: 'b', kib: 500, coldImportMs: 50 },
        { name: 'gone', kib: 300, coldImportMs: 30 },
      ],
      baseline: { name: 'baseline-bare', kib: 342.29, coldImportMs: 37 },
    },
    widget: { loaderGzipBytes: 3250, chatGzipBytes: 9232, firstPaintMs: 112, readyMs: 200 },
  },
);

// The machine was twice as slow: every steady route's p50 doubled.
const next = results(
  '2026-11-26',
  [
    route(ROUTES.message, 24, 2, 5, { p95: 30 }),
    route(ROUTES.conversationList, 100, 65.5, 0, { p95: 190 }),
    route(NEW_AVATARS, 3, 0, 0, { p95: 5 }),
    route('GET /slow', 80, 1, 0, { p95: 90 }),
    route('GET /quick', 2, 1, 0, { p95: 3 }),
    route('GET /steady', 8, 1.07, 0, { p95: 12 }),
    route('POST /heavy', 10, 1, 14, { p95: 15 }),
    route('POST /x', 12, 1, 4, { p95: 20 }),
    failed('DELETE /broken'),
  ],
  {
    counts: { sizes: [10, 10_000], rows: [countsRow(10, 0, 1), countsRow(10_000, 1.59, 16)] },
    reportWrites: { conversations: 10, alone: { incoming: 11, reply: 30, mean: 20.5 }, batched: { incoming: 4.6, reply: 8.4, mean: 6.5 } },
    pipeline: { dispatch: { events: 600, seconds: 6, perSecond: 100, cpuMsPerEvent: 8, dynamoCallsPerEvent: 1.1 } },
    bundles: {
      functions: [
        { name: 'a', kib: 401, coldImportMs: 80 },
        { name: 'b', kib: 520, coldImportMs: 100 },
        { name: 'fresh', kib: 10, coldImportMs: 5 },
      ],
      baseline: { name: 'baseline-bare', kib: 342.29, coldImportMs: 74 },
    },
    widget: { loaderGzipBytes: 3250, chatGzipBytes: 9232, firstPaintMs: 112, readyMs: 420 },
  },
);

const figure = (r: BenchResults, key: string) => headlineFigures(r).find((f) => f.key === key)?.value;

describe('bench summary', () => {
  it('computes the headline figures from the results', () => {
    // Request 5 + report writes at volume 6.5 + q index seal at the largest size 1.59.
    expect(figure(next, 'chat.wcu')).toBe(13.09);
    expect(figure(previous, 'chat.wcu')).toBe(13.18);
    expect(figure(next, 'message.wcu')).toBe(5);
    expect(figure(next, 'message.rcu')).toBe(2);
    expect(figure(next, 'conversation-list.rcu')).toBe(65.5);
    expect(figure(next, 'counts.10000.meta.rcu')).toBe(1);
    expect(figure(next, 'counts.10000.meta-q.rcu')).toBe(16);
    expect(figure(next, 'counts.10000.list-q.rcu')).toBe(32);
    // Over the 8 measured routes (the failed one has no figures): p50s 2, 3, 8, 10, 12, 24, 80, 100.
    expect(figure(next, 'latency.p50.median')).toBe(10);
    expect(figure(next, 'latency.p50.p95')).toBe(100);
    expect(figure(next, 'latency.p95.median')).toBe(15);
    expect(figure(previous, 'latency.p99.median')).toBe(12);
    expect(figure(next, 'latency.p50.max')).toBe(100);
    expect(figure(next, 'pipeline.dispatch')).toBe(100);
    expect(figure(next, 'bundles.kib.min')).toBe(10);
    expect(figure(next, 'bundles.kib.max')).toBe(520);
    expect(figure(next, 'bundles.cold.median')).toBe(80);
    expect(figure(next, 'widget.loader')).toBe(3.17);
    // Parts a run did not measure give no figure rather than a zero.
    expect(figure(results('x', [], {}), 'chat.wcu')).toBeUndefined();
    expect(
      headlineFigures(results('x', [], { bundles: { functions: [], baseline: { name: 'baseline-bare', kib: 0, coldImportMs: 0 } } })),
    ).toEqual([]);
  });

  it('ranks the worst routes highest first, ties by route, failed routes left out', () => {
    expect(worstRoutes(next, 'latency', 3).map((r) => r.route)).toEqual([ROUTES.conversationList, 'GET /slow', ROUTES.message]);
    expect(worstRoutes(next, 'rcu', 4).map((r) => r.route)).toEqual([ROUTES.conversationList, ROUTES.message, 'GET /steady', 'GET /quick']);
    expect(worstRoutes(next, 'wcu').map((r) => r.route)).toEqual([
      'POST /heavy',
      ROUTES.message,
      'POST /x',
      ROUTES.conversationList,
      'GET /quick',
      NEW_AVATARS,
      'GET /slow',
      'GET /steady',
    ]);
    // A run without p95 (results.json from before the bench recorded it) is ranked by p99.
    expect(worstRoutes(previous, 'latency', 2).map((r) => r.route)).toEqual([ROUTES.conversationList, ROUTES.message]);
  });

  it('lists what moved beyond noise: capacity first, then latency against the run-wide factor, then status', () => {
    const c = compare(previous, next);
    expect(c.speed).toEqual({ factor: 2, routes: 7 });
    expect(c.routes).toEqual([
      { route: 'POST /heavy', measure: 'WCU / call', previous: 10, now: 14 },
      { route: ROUTES.message, measure: 'RCU / call', previous: 2.5, now: 2 },
      { route: ROUTES.conversationList, measure: 'RCU / call', previous: 79, now: 65.5 },
      { route: 'GET /quick', measure: 'p50 ms', previous: 10, now: 2 },
      { route: 'GET /slow', measure: 'p50 ms', previous: 10, now: 80 },
      { route: 'DELETE /broken', measure: 'status', previous: 'measured', now: 'failed: GET /broken answered 500: boom' },
    ]);
    expect(c.added).toEqual([NEW_AVATARS]);
    expect(c.removed).toEqual([OLD_AVATARS]);
    expect(c.bundles).toEqual({ changed: [{ name: 'b', previous: 500, now: 520 }], added: ['fresh'], removed: ['gone'] });
    // Figures that kept up with the machine (the message p50, the slowest route, the median cold import),
    // stayed put on a slower machine (the widget's paint) or moved by a few hundredths of a unit (the
    // message's WCU, the chat message in all) did not move. The dispatch rate fell twice as far as the
    // machine slowed; the smallest bundle and the fastest cold import are a new tiny function's.
    expect(c.figures.map((f) => f.figure.key).sort()).toEqual(
      [
        'bundles.cold.min',
        'bundles.kib.max',
        'bundles.kib.min',
        'conversation-list.rcu',
        'counts.10000.list-q.rcu',
        'counts.10000.meta-q.rcu',
        'message.rcu',
        'pipeline.dispatch',
      ].sort(),
    );
    expect(c.figures.find((f) => f.figure.key === 'message.rcu')).toMatchObject({ previous: 2.5, figure: { value: 2, unit: 'RCU' } });
    expect(c.newFigures.some((l) => l.includes('p95, median'))).toBe(true);
    expect(c.goneFigures.some((l) => l.includes('p99, median'))).toBe(true);
  });

  it('judges noise by the stated thresholds', () => {
    expect(excess('units', 5.03, 5)).toBe(1);
    expect(excess('units', 30.13, 30)).toBe(1); // over 0.1 but under 2 %
    expect(excess('units', 0, 0.5)).toBeGreaterThan(1);
    expect(excess('time', 10, 20, 2)).toBe(1);
    expect(excess('time', 10, 10, 2)).toBe(1);
    expect(excess('time', 1, 2.9, 1)).toBe(1); // under the 2 ms margin
    expect(excess('time', 10, 31, 2)).toBeCloseTo(1.55);
    expect(excess('time', -6.5, 3, 1)).toBe(1);
    expect(excess('rate', 400, 150, 2)).toBe(1); // within 1.5× of the band 200–400
    expect(excess('rate', 400, 130, 2)).toBeCloseTo(200 / 130);
    expect(excess('rate', 400, 130, 2)).toBeGreaterThan(1.5);
    expect(excess('size', 400, 403)).toBe(1);
    expect(excess('size', 400, 405)).toBeGreaterThan(1);
  });

  it('writes the block with the thresholds and the comparison, or says there was no previous run', () => {
    const md = summaryMarkdown({ results: previous, source: 'bench/results.json of commit abc1234' }, next);
    expect(md.startsWith(`${SUMMARY_START}\n## Summary`)).toBe(true);
    expect(md.trimEnd().endsWith(SUMMARY_END)).toBe(true);
    expect(md).toContain('8 routes measured (30 timed calls each), 1 failed (`DELETE /broken`), none without a bench scenario.');
    expect(md).toContain('Compared with the run of 2026-11-24 (bench/results.json of commit abc1234).');
    expect(md).toContain('| `POST …/messages` (agent message), read units per call | 2 RCU | 2.5 RCU | **−20%** |');
    expect(md).toContain('| `POST …/messages` (agent message), write units per call | 5 RCU'.replace('5 RCU', '5 WCU'));
    expect(md).toContain('more than 0.1 and 2%');
    expect(md).toContain('**×2** over 7 routes');
    expect(md).toContain(`New routes: 1, \`${NEW_AVATARS}\`. Removed routes: 1, \`${OLD_AVATARS}\`.`);
    expect(md).toContain('Bundles beyond noise: b 500 → 520 KiB; new: fresh; removed: gone.');
    expect(md).toContain('By endpoint p95 (of 30 calls):');
    const table = md.split('\n').filter((l) => l.startsWith('| `') && l.includes('| WCU / call |'));
    expect(table).toEqual(['| `POST /heavy` | WCU / call | 10 | 14 |']);

    const first = summaryMarkdown(undefined, next);
    expect(first).toContain('No previous run to compare with.');
    expect(first).toContain('### Change since the previous run\n\nNo previous run.');
    expect(first).toContain('| figure | now |');
  });

  it('puts the block after the opening paragraph once, then replaces only the block', () => {
    const doc =
      '# Benchmarks\n\nMeasured by `npm run bench` on 2026-11-26 (2 cores).\n\nEach route: 30 timed calls.\n\n## Routes\n\n| a |\n';
    const block = summaryMarkdown(undefined, next);
    const once = replaceSummary(doc, block);
    expect(once).toBe(
      `# Benchmarks\n\nMeasured by \`npm run bench\` on 2026-11-26 (2 cores).\n\n${block}\nEach route: 30 timed calls.\n\n## Routes\n\n| a |\n`,
    );
    const other = summaryMarkdown({ results: previous, source: 'x' }, next);
    const twice = replaceSummary(once, other);
    expect(twice).toBe(
      `# Benchmarks\n\nMeasured by \`npm run bench\` on 2026-11-26 (2 cores).\n\n${other}\nEach route: 30 timed calls.\n\n## Routes\n\n| a |\n`,
    );
    expect(replaceSummary(twice, other)).toBe(twice);
  });
});
