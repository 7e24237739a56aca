import type { BenchResults, RouteResult } from './results.ts';

// The summary that opens BENCHMARKS.md: headline figures, the worst routes by latency, read and write
// units, and what moved since the previous run. A pure function of (previous results, new results), so
// `npm run bench` and `npm run bench:summary` (which rewrites only this block from the committed
// results) print the same thing.

/** The routes whose figures a reader asks for first. */
export const ROUTES = {
  message: 'POST /api/v1/accounts/{account_id}/conversations/{conversation_id}/messages',
  widgetMessage: 'POST /api/v1/widget/messages',
  conversationCreate: 'POST /api/v1/accounts/{account_id}/conversations',
  conversationList: 'GET /api/v1/accounts/{account_id}/conversations',
} as const;

export const WORST_N = 10;
/** Longer change lists are cut, with a count of the rest: the routes table below holds everything. */
const LIST_LIMIT = 25;

/**
 * What counts as a move between two runs. Capacity units are averages over the timed calls, so an
 * occasional extra write (an id block reserved, a creation mark settled) shifts them by a few hundredths.
 * Times and rates depend on how busy the shared machine was: the run-wide factor (the median over common
 * routes of new p50 / old p50) says by how much, and a time moves only when it leaves the band between its
 * previous value and that value scaled by the factor.
 */
export const NOISE = {
  units: { absolute: 0.1, relative: 0.02 },
  size: { relative: 0.01 },
  usd: { relative: 0.01 },
  time: { factor: 1.5, absoluteMs: 2 },
  rate: { factor: 1.5 },
  /** Fewer common routes than this and there is no run-wide factor: times are compared as they are. */
  minRoutesForSpeed: 5,
} as const;

export const SUMMARY_START = '<!-- bench-summary:start (generated from bench/results.json by bench/summary.ts) -->';
export const SUMMARY_END = '<!-- bench-summary:end -->';

export type FigureKind = 'units' | 'time' | 'rate' | 'size' | 'usd';

export interface Figure {
  /** Stable across runs: the comparison pairs figures by it. */
  key: string;
  label: string;
  value: number;
  unit: string;
  kind: FigureKind;
}

const num = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);
const r2 = (n: number) => Math.round(n * 100) / 100;
const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });
const code = (s: string) => `\`${s}\``;

/** Nearest rank, as the bench computes its percentiles. */
function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** Highest first; ties by name, so every list is the same for the same results. */
function byDesc<T>(value: (x: T) => number, name: (x: NoInfer<T>) => string) {
  return (a: T, b: T) => value(b) - value(a) || name(a).localeCompare(name(b));
}
const routeName = (r: { route: string }) => r.route;
const measured = (r: RouteResult) => !r.error && num(r.endpoint?.p50);

/** The latency tail the run recorded for every measured route: p95 when all have it, else p99. */
export function tailOf(results: BenchResults): 'p95' | 'p99' {
  const ok = results.routes.filter(measured);
  return ok.length && ok.every((r) => num(r.endpoint.p95)) ? 'p95' : 'p99';
}

/** The counts part's row at the most conversations (its `q` index seal figures are the ones to quote). */
export function largestCountsRow(results: Pick<BenchResults, 'counts'>) {
  const rows = results.counts?.rows ?? [];
  return rows.reduce<(typeof rows)[number] | undefined>(
    (best, row) => (!best || row.conversations > best.conversations ? row : best),
    undefined,
  );
}

export function headlineFigures(results: BenchResults): Figure[] {
  const figures: Figure[] = [];
  const add = (key: string, label: string, value: unknown, unit: string, kind: FigureKind) => {
    if (num(value)) figures.push({ key, label, value: r2(value), unit, kind });
  };
  const route = (key: string) => results.routes.find((r) => r.route === key && measured(r));
  const row = largestCountsRow(results);
  const size = row ? fmt(row.conversations) : '';

  const message = route(ROUTES.message);
  const reports = results.reportWrites?.batched?.mean;
  const seal = row?.index?.wcuPerMessage;
  if (message && num(reports) && num(seal)) {
    add(
      'chat.wcu',
      `a chat message, write units in all: request ${fmt(message.wcu)} + report writes ${fmt(reports)} (at volume, half replies) + \`q\` index seal ${fmt(seal)} (at ${size} conversations)`,
      message.wcu + reports + seal,
      'WCU',
      'units',
    );
  }
  if (message) {
    add('message.wcu', `${code('POST …/messages')} (agent message), write units per call`, message.wcu, 'WCU', 'units');
    add('message.rcu', `${code('POST …/messages')} (agent message), read units per call`, message.rcu, 'RCU', 'units');
    add('message.p50', `${code('POST …/messages')} (agent message), p50`, message.endpoint.p50, 'ms', 'time');
  }
  const widgetMessage = route(ROUTES.widgetMessage);
  if (widgetMessage) {
    add('widget-message.wcu', `${code(ROUTES.widgetMessage)} (visitor message), write units per call`, widgetMessage.wcu, 'WCU', 'units');
    add('widget-message.rcu', `${code(ROUTES.widgetMessage)} (visitor message), read units per call`, widgetMessage.rcu, 'RCU', 'units');
  }
  add(
    'reports.alone.wcu',
    'report writes per chat message, each change alone in its batch',
    results.reportWrites?.alone?.mean,
    'WCU',
    'units',
  );
  add('reports.batched.wcu', 'report writes per chat message, at volume (batches of 10)', reports, 'WCU', 'units');
  const create = route(ROUTES.conversationCreate);
  if (create) {
    add(
      'conversation-create.wcu',
      `${code('POST …/conversations')} (with its first message), write units per call`,
      create.wcu,
      'WCU',
      'units',
    );
    add(
      'conversation-create.rcu',
      `${code('POST …/conversations')} (with its first message), read units per call`,
      create.rcu,
      'RCU',
      'units',
    );
  }
  const list = route(ROUTES.conversationList);
  if (list) {
    add(
      'conversation-list.rcu',
      `${code('GET …/conversations')} list page (the bench account), read units per call`,
      list.rcu,
      'RCU',
      'units',
    );
    add('conversation-list.p50', `${code('GET …/conversations')} list page (the bench account), p50`, list.endpoint.p50, 'ms', 'time');
  }
  if (row) {
    const at = row.conversations;
    add(
      `counts.${at}.meta.rcu`,
      `${code('conversations/meta')} at ${size} conversations`,
      row.meta?.find((m) => m.query === '' && m.caller === 'administrator')?.rcu,
      'RCU',
      'units',
    );
    add(
      `counts.${at}.meta-q.rcu`,
      `${code(`conversations/meta${row.q?.query ?? ''}`)} at ${size} conversations (${fmt(row.q?.matches ?? 0)} matches)`,
      row.q?.rcu,
      'RCU',
      'units',
    );
    const listQ = row.qRoutes?.find((q) => q.route.startsWith('conversations?q='));
    if (listQ)
      add(
        `counts.${at}.list-q.rcu`,
        `${code(listQ.route)} page 1 at ${size} conversations (${fmt(listQ.matches)} matches)`,
        listQ.rcu,
        'RCU',
        'units',
      );
  }

  const ok = results.routes.filter(measured);
  if (ok.length) {
    const p50s = ok.map((r) => r.endpoint.p50);
    const tail = tailOf(results);
    const slowest = [...ok].sort(byDesc((r) => r.endpoint.p50, routeName))[0];
    add('latency.p50.median', `endpoint p50, median over ${ok.length} routes`, percentile(p50s, 50), 'ms', 'time');
    add('latency.p50.p95', `endpoint p50, 95th percentile over ${ok.length} routes`, percentile(p50s, 95), 'ms', 'time');
    add(
      `latency.${tail}.median`,
      `endpoint ${tail}, median over ${ok.length} routes`,
      percentile(
        ok.map((r) => r.endpoint[tail]!),
        50,
      ),
      'ms',
      'time',
    );
    add('latency.p50.max', `endpoint p50, slowest route (${code(slowest.route)})`, slowest.endpoint.p50, 'ms', 'time');
  }

  const p = results.pipeline;
  add('pipeline.webhook.p50', 'write → signed webhook at a receiver, p50', p?.writeToWebhook?.p50, 'ms', 'time');
  add('pipeline.webhook.p95', 'write → signed webhook at a receiver, p95', p?.writeToWebhook?.p95, 'ms', 'time');
  add('pipeline.throughput', 'events delivered end to end (burst of 200 messages)', p?.throughput?.perSecond, 'events/s', 'rate');
  add('pipeline.drain', "pipeline drain after the burst's last write", p?.throughput?.drainMs, 'ms', 'time');
  add('pipeline.dispatch', 'dispatch stage alone, draining a backlog of 600 changes', p?.dispatch?.perSecond, 'events/s', 'rate');
  add(
    'cable.frame.p50',
    "agent reply → `message.created` frame on the contact's socket, p50",
    results.cable?.writeToFrame?.p50,
    'ms',
    'time',
  );
  add(
    'cable.frame.p95',
    "agent reply → `message.created` frame on the contact's socket, p95",
    results.cable?.writeToFrame?.p95,
    'ms',
    'time',
  );
  for (const line of results.cable?.cost ?? []) {
    if (line.connections !== 1000) continue;
    // Results from before the cableTransport prop name each design in words only.
    const transport = /cableTransport '([^']+)'/.exec(line.design)?.[1];
    const name = transport ? `cableTransport ${code(transport)}` : line.design;
    add(
      `cable.cost.1000.${transport ?? line.design}`,
      `1,000 idle /cable connections, ${name} (cost model)`,
      line.total,
      'USD/month',
      'usd',
    );
  }

  const fns = results.bundles?.functions ?? [];
  if (fns.length) {
    const bySize = [...fns].sort((a, b) => a.kib - b.kib);
    const cold = fns.map((b) => b.coldImportMs);
    add('bundles.kib.min', `function bundle, smallest (${bySize[0].name})`, bySize[0].kib, 'KiB', 'size');
    add(
      'bundles.kib.median',
      `function bundle, median of ${fns.length}`,
      percentile(
        bySize.map((b) => b.kib),
        50,
      ),
      'KiB',
      'size',
    );
    add('bundles.kib.max', `function bundle, largest (${bySize[bySize.length - 1].name})`, bySize[bySize.length - 1].kib, 'KiB', 'size');
    add('bundles.cold.min', 'cold import, fastest function', Math.min(...cold), 'ms', 'time');
    add('bundles.cold.median', `cold import, median of ${fns.length} functions`, percentile(cold, 50), 'ms', 'time');
    add('bundles.cold.max', 'cold import, slowest function', Math.max(...cold), 'ms', 'time');
  }
  const base = results.bundles?.baseline;
  if (base && base.kib > 0) {
    add('bundles.baseline.kib', 'baseline bare handler bundle', base.kib, 'KiB', 'size');
    add('bundles.baseline.cold', 'baseline bare handler cold import', base.coldImportMs, 'ms', 'time');
  }

  const w = results.widget;
  if (num(w?.loaderGzipBytes)) add('widget.loader', 'web widget loader `sdk.js`, gzip', w.loaderGzipBytes / 1024, 'KiB', 'size');
  if (num(w?.chatGzipBytes)) add('widget.chat', 'web widget chat page JS + CSS, gzip', w.chatGzipBytes / 1024, 'KiB', 'size');
  add('widget.paint', 'web widget first contentful paint', w?.firstPaintMs, 'ms', 'time');
  add('widget.ready', 'web widget usable (composer on screen)', w?.readyMs, 'ms', 'time');
  return figures;
}

/** The n measured routes highest in the measure, highest first (ties by route, so the list is stable). */
export function worstRoutes(results: BenchResults, by: 'latency' | 'rcu' | 'wcu', n = WORST_N): RouteResult[] {
  const tail = tailOf(results);
  const value = (r: RouteResult) => (by === 'latency' ? r.endpoint[tail]! : r[by]);
  return results.routes
    .filter((r) => measured(r) && num(value(r)))
    .sort(byDesc(value, routeName))
    .slice(0, n);
}

export interface FigureChange {
  figure: Figure;
  previous: number;
}

export interface RouteChange {
  route: string;
  measure: 'RCU / call' | 'WCU / call' | 'p50 ms' | 'status';
  previous: number | string;
  now: number | string;
}

export interface Comparison {
  /** The run-wide latency factor, new / old, and the common routes it was taken over; null when too few. */
  speed: { factor: number; routes: number } | null;
  /** Headline figures beyond noise. */
  figures: FigureChange[];
  /** Headline figures only one of the runs has (labels). */
  newFigures: string[];
  goneFigures: string[];
  /** Capacity changes first (largest relative move first), then latency, then routes that started or stopped failing. */
  routes: RouteChange[];
  added: string[];
  removed: string[];
  bundles: { changed: { name: string; previous: number; now: number }[]; added: string[]; removed: string[] };
}

/** How far beyond noise a figure moved, as a ratio > 1 to rank by; 1 when within noise. */
export function excess(kind: FigureKind, previous: number, now: number, factor = 1): number {
  const rel = (limit: number) => {
    const d = Math.abs(now - previous);
    if (d === 0 || d <= limit * Math.abs(previous)) return 1;
    return previous === 0 ? Infinity : 1 + d / Math.abs(previous);
  };
  switch (kind) {
    case 'units': {
      if (Math.abs(now - previous) <= NOISE.units.absolute) return 1;
      return rel(NOISE.units.relative);
    }
    case 'size':
      return rel(NOISE.size.relative);
    case 'usd':
      return rel(NOISE.usd.relative);
    case 'time':
      return beyondBand(previous, now, factor, NOISE.time.factor, NOISE.time.absoluteMs);
    case 'rate':
      return beyondBand(previous, now, 1 / factor, NOISE.rate.factor, 0);
  }
}

/**
 * A time or rate moved when it left the band between its previous value as it was and as scaled by the
 * run-wide factor, by more than the noise factor (and the absolute margin): a value that kept up with the
 * whole run did not move, and neither did one left as it was while the machine was busier (the widget's
 * page loads, measured in a run of their own).
 */
function beyondBand(previous: number, now: number, scale: number, factor: number, absolute: number): number {
  // A p50 below zero is the bench's overhead subtraction going past a fast call: nothing to compare.
  if (previous <= 0 || now <= 0) return 1;
  const low = previous * Math.min(1, scale);
  const high = previous * Math.max(1, scale);
  if (now > high) return now / high > factor && now - high > absolute ? now / high : 1;
  if (now < low) return low / now > factor && low - now > absolute ? low / now : 1;
  return 1;
}

export function compare(previous: BenchResults, next: BenchResults): Comparison {
  const before = new Map(previous.routes.map((r) => [r.route, r]));
  const after = new Map(next.routes.map((r) => [r.route, r]));
  const common = next.routes.filter((r) => before.has(r.route));

  const ratios = common
    .map((r) => [before.get(r.route)!, r] as const)
    .filter(([a, b]) => measured(a) && measured(b) && a.endpoint.p50 > 0 && b.endpoint.p50 > 0)
    .map(([a, b]) => b.endpoint.p50 / a.endpoint.p50);
  const speed = ratios.length >= NOISE.minRoutesForSpeed ? { factor: r2(percentile(ratios, 50)), routes: ratios.length } : null;
  const factor = speed?.factor ?? 1;

  const oldFigures = new Map(headlineFigures(previous).map((f) => [f.key, f]));
  const newFigures = headlineFigures(next);
  const figures = newFigures
    .filter((f) => oldFigures.has(f.key) && excess(f.kind, oldFigures.get(f.key)!.value, f.value, factor) > 1)
    .map((f) => ({ figure: f, previous: oldFigures.get(f.key)!.value }));

  const capacity: (RouteChange & { excess: number })[] = [];
  const latency: (RouteChange & { excess: number })[] = [];
  const status: RouteChange[] = [];
  for (const now of common) {
    const was = before.get(now.route)!;
    if (measured(was) !== measured(now)) {
      status.push(
        measured(now)
          ? { route: now.route, measure: 'status', previous: 'failed', now: 'measured' }
          : { route: now.route, measure: 'status', previous: 'measured', now: `failed: ${now.error ?? 'no figures'}` },
      );
      continue;
    }
    if (!measured(now)) continue;
    for (const [measure, key] of [
      ['RCU / call', 'rcu'],
      ['WCU / call', 'wcu'],
    ] as const) {
      const x = excess('units', was[key], now[key]);
      if (x > 1) capacity.push({ route: now.route, measure, previous: was[key], now: now[key], excess: x });
    }
    const x = excess('time', was.endpoint.p50, now.endpoint.p50, factor);
    if (x > 1) latency.push({ route: now.route, measure: 'p50 ms', previous: was.endpoint.p50, now: now.endpoint.p50, excess: x });
  }
  const ranked = (xs: (RouteChange & { excess: number })[]) => xs.sort(byDesc((c) => c.excess, routeName)).map(({ excess: _, ...c }) => c);

  const oldBundles = new Map((previous.bundles?.functions ?? []).map((b) => [b.name, b]));
  const newBundles = new Map((next.bundles?.functions ?? []).map((b) => [b.name, b]));
  const changedBundles = [...newBundles.values()]
    .filter((b) => oldBundles.has(b.name) && excess('size', oldBundles.get(b.name)!.kib, b.kib) > 1)
    .map((b) => ({ name: b.name, previous: oldBundles.get(b.name)!.kib, now: b.kib }))
    .sort(
      byDesc(
        (b) => Math.abs(b.now - b.previous),
        (b) => b.name,
      ),
    );

  return {
    speed,
    figures,
    newFigures: newFigures.filter((f) => !oldFigures.has(f.key)).map((f) => f.label),
    goneFigures: [...oldFigures.values()].filter((f) => !newFigures.some((g) => g.key === f.key)).map((f) => f.label),
    routes: [...ranked(capacity), ...ranked(latency), ...status],
    added: next.routes.filter((r) => !before.has(r.route)).map((r) => r.route),
    removed: previous.routes.filter((r) => !after.has(r.route)).map((r) => r.route),
    bundles: {
      changed: changedBundles,
      added: [...newBundles.keys()].filter((n) => !oldBundles.has(n)),
      removed: [...oldBundles.keys()].filter((n) => !newBundles.has(n)),
    },
  };
}

const signedPct = (previous: number, now: number) => {
  if (now === previous) return 'unchanged';
  if (previous === 0) return 'from 0';
  const p = ((now - previous) / Math.abs(previous)) * 100;
  return `${p > 0 ? '+' : '−'}${Math.abs(p) >= 10 ? Math.round(Math.abs(p)) : Math.abs(p).toFixed(1)}%`;
};

const capped = <T>(xs: T[], render: (x: T) => string) => {
  const shown = xs.slice(0, LIST_LIMIT).map(render);
  return xs.length > LIST_LIMIT ? [...shown, `and ${xs.length - LIST_LIMIT} more`] : shown;
};

const routeList = (routes: string[]) => capped(routes, code).join(', ');

export interface PreviousRun {
  results: BenchResults;
  /** Where the previous results came from, for the reader (a commit, a file). */
  source: string;
}

/** The summary block, markers included, for the top of BENCHMARKS.md. */
export function summaryMarkdown(previous: PreviousRun | undefined, next: BenchResults, n = WORST_N): string {
  const lines: string[] = [SUMMARY_START, '## Summary', ''];
  const ok = next.routes.filter(measured);
  const failed = next.routes.filter((r) => !measured(r));
  const tail = tailOf(next);
  lines.push(
    `${[
      `${ok.length} routes measured (${next.iterations} timed calls each)`,
      failed.length ? `${failed.length} failed (${routeList(failed.map((r) => r.route))})` : 'none failed',
      next.missing.length
        ? `${next.missing.length} without a bench scenario (${routeList(next.missing)})`
        : 'none without a bench scenario',
    ].join(', ')}.`,
    previous ? `Compared with the run of ${previous.results.meta.date} (${previous.source}).` : 'No previous run to compare with.',
    '',
  );

  const comparison = previous ? compare(previous.results, next) : undefined;
  const moved = new Set(comparison?.figures.map((c) => c.figure.key));
  const old = new Map(previous ? headlineFigures(previous.results).map((f) => [f.key, f.value]) : []);
  lines.push('### Headline figures', '');
  if (previous) {
    lines.push(
      'Changes in **bold** are beyond noise (the thresholds are under Change since the previous run).',
      '',
      '| figure | now | previous run | change |',
      '|---|---|---|---|',
    );
  } else {
    lines.push('| figure | now |', '|---|---|');
  }
  for (const f of headlineFigures(next)) {
    const value = `${fmt(f.value)} ${f.unit}`;
    if (!previous) {
      lines.push(`| ${f.label} | ${value} |`);
      continue;
    }
    const was = old.get(f.key);
    const change =
      was === undefined ? 'not in the previous run' : moved.has(f.key) ? `**${signedPct(was, f.value)}**` : signedPct(was, f.value);
    lines.push(`| ${f.label} | ${value} | ${was === undefined ? '–' : `${fmt(was)} ${f.unit}`} | ${change} |`);
  }

  const worstTable = (title: string, by: 'latency' | 'rcu' | 'wcu') => {
    lines.push('', title, '', `| route | p50 ms | ${tail} ms | RCU / call | WCU / call |`, '|---|---|---|---|---|');
    for (const r of worstRoutes(next, by, n))
      lines.push(`| ${code(r.route)} | ${fmt(r.endpoint.p50)} | ${fmt(r.endpoint[tail]!)} | ${fmt(r.rcu)} | ${fmt(r.wcu)} |`);
  };
  lines.push('', `### Worst ${n} routes`);
  worstTable(
    tail === 'p95'
      ? `By endpoint p95 (of ${next.iterations} calls):`
      : `By endpoint p99 (this run recorded p50 and p99 per route; of ${next.iterations} calls the p99 is the slowest one, so read it with the p50):`,
    'latency',
  );
  worstTable('By read units per call:', 'rcu');
  worstTable('By write units per call:', 'wcu');

  lines.push('', '### Change since the previous run', '');
  if (!previous || !comparison) {
    lines.push('No previous run.', SUMMARY_END);
    return `${lines.join('\n')}\n`;
  }
  const c = comparison;
  lines.push(
    `Noise thresholds: capacity units move when they change by more than ${NOISE.units.absolute} and ${NOISE.units.relative * 100}%; sizes and the cost model by more than ${NOISE.size.relative * 100}%; ` +
      `times (p50s, latencies, cold imports) and rates when they leave, by more than ${NOISE.time.factor}× (and times by more than ${NOISE.time.absoluteMs} ms), ` +
      'the band between the previous value as it was and as scaled by the run-wide factor: the median over common routes of new p50 / previous p50, ' +
      (c.speed
        ? `here **×${fmt(c.speed.factor)}** over ${c.speed.routes} routes (a whole-run shift is the machine's load, not the code).`
        : `not taken (fewer than ${NOISE.minRoutesForSpeed} routes measured in both runs), so times are compared as they are.`),
    '',
  );
  lines.push(
    `Headline figures beyond noise: ${c.figures.length ? c.figures.map((x) => `${x.figure.label} ${fmt(x.previous)} → ${fmt(x.figure.value)} ${x.figure.unit}`).join('; ') : 'none'}.`,
  );
  if (c.newFigures.length) lines.push('', `Headline figures new in this run: ${c.newFigures.join('; ')}.`);
  if (c.goneFigures.length) lines.push('', `Headline figures the previous run had and this one has not: ${c.goneFigures.join('; ')}.`);
  lines.push('');
  if (c.routes.length) {
    lines.push(`Routes beyond noise (${c.routes.length}):`, '', '| route | measure | previous | now |', '|---|---|---|---|');
    const cell = (v: number | string) => (typeof v === 'number' ? fmt(v) : v.replace(/\|/g, '/').slice(0, 120));
    for (const r of c.routes.slice(0, LIST_LIMIT)) lines.push(`| ${code(r.route)} | ${r.measure} | ${cell(r.previous)} | ${cell(r.now)} |`);
    if (c.routes.length > LIST_LIMIT) lines.push('', `And ${c.routes.length - LIST_LIMIT} more, in the order above (capacity, then p50).`);
  } else {
    lines.push('Routes beyond noise: none.');
  }
  lines.push(
    '',
    `New routes: ${c.added.length ? `${c.added.length}, ${routeList(c.added)}` : 'none'}. Removed routes: ${c.removed.length ? `${c.removed.length}, ${routeList(c.removed)}` : 'none'}.`,
    '',
    `Bundles beyond noise: ${c.bundles.changed.length ? capped(c.bundles.changed, (b) => `${b.name} ${fmt(b.previous)} → ${fmt(b.now)} KiB`).join('; ') : 'none'}` +
      `${c.bundles.added.length ? `; new: ${capped(c.bundles.added, (x) => x).join(', ')}` : ''}` +
      `${c.bundles.removed.length ? `; removed: ${capped(c.bundles.removed, (x) => x).join(', ')}` : ''}.`,
    SUMMARY_END,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * BENCHMARKS.md with its summary block replaced, or, in a file from before the summary, inserted after the
 * opening "Measured by" paragraph (after the title when there is none).
 */
export function replaceSummary(markdown: string, block: string): string {
  const start = markdown.indexOf(SUMMARY_START);
  const end = markdown.indexOf(SUMMARY_END);
  const body = block.endsWith('\n') ? block : `${block}\n`;
  if (start >= 0 && end > start) {
    let after = end + SUMMARY_END.length;
    if (markdown[after] === '\n') after++;
    return markdown.slice(0, start) + body + markdown.slice(after);
  }
  const lines = markdown.split('\n');
  let at = lines.findIndex((l) => l.startsWith('Measured by'));
  if (at < 0) at = lines.findIndex((l) => l.startsWith('# '));
  if (at < 0) return `${body}\n${markdown}`;
  // The paragraph goes on to the next blank line.
  let next = at + 1;
  while (next < lines.length && lines[next].trim() !== '') next++;
  return [...lines.slice(0, next), '', body.trimEnd(), ...lines.slice(next)].join('\n');
}
