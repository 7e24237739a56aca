import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as ddb from '@aws-sdk/client-dynamodb';
import { buildFunctionsSeparately } from '../infra/build.ts';
import { methodsOf, routeKeyOf, routes } from '../infra/routes.ts';
import { ROOT, startRuntime } from '../infra/local/runtime.ts';
import { client, seedAccountVia } from '../test/support/http.ts';
import { startProviderStub } from '../test/support/providers.ts';
import { instrument, isRead, type DynamoCall } from './instrument.ts';
import { benchPipeline, pipelineMarkdown, type PipelineResult } from './pipeline.ts';
import { benchChannels, channelsMarkdown, type ChannelsResult } from './channels.ts';
import { benchReportRows, benchReportWrites, reportWritesMarkdown, type ReportWritesResult } from './report-writes.ts';
import { benchCable, cableMarkdown, type CableResult } from './cable.ts';
import { countsMarkdown, measureCounts, type CountsResult } from './counts.ts';
import { benchLists, listsMarkdown, type ListsResult } from './lists.ts';
import { measureScale, SCALE_DIR, scaleMarkdown, type ScaleResult } from './scale.ts';
import { benchHeat, heatMarkdown, wholeBillMarkdown, type HeatResult } from './heat.ts';
import { benchWidgetWeb, widgetWebMarkdown, type WidgetWebResult } from './widget-web.ts';
import type { BenchResults, BundleResult, RouteResult } from './results.ts';
import { largestCountsRow, summaryMarkdown, type PreviousRun } from './summary.ts';
import type { BenchWorld } from './scenarios/types.ts';
import { scenarios } from './scenarios/index.ts';

// npm run bench: every route through the local runtime next to the DynamoDB calls it makes, in one
// run; capacity units per call; bundle size and cold import per function. Writes BENCHMARKS.md and
// bench/results.json when every part ran over every route; a run limited by BENCH_PARTS or BENCH_ROUTES prints its
// markdown instead, so the committed results are never a partial run's.

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 30);
const WARMUP = 3;
/** `BENCH_ROUTES=<regex>` measures only the matching routes; `BENCH_PARTS=routes,counts,lists,pipeline,heat,reports,cable,bundles,widget,channels`
 * picks the parts. `scale` (bench/scale.ts) runs only when named: it loads for many minutes, keeps its data in BENCH_SCALE_DIR,
 * and alone (`BENCH_PARTS=scale`) writes its own section of BENCHMARKS.md and its part of bench/results.json; a complete run
 * keeps the last ones. */
const ONLY = process.env.BENCH_ROUTES ? new RegExp(process.env.BENCH_ROUTES) : undefined;
const ALL_PARTS = ['routes', 'counts', 'lists', 'pipeline', 'heat', 'reports', 'cable', 'bundles', 'widget', 'channels'];
const PARTS = new Set((process.env.BENCH_PARTS ?? ALL_PARTS.join(',')).split(','));
const COMPLETE = !ONLY && ALL_PARTS.every((p) => PARTS.has(p));

const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const r2 = (n: number) => Math.round(n * 100) / 100;

async function benchRoutes(world: BenchWorld, recorder: ReturnType<typeof instrument>, raw: ddb.DynamoDBClient) {
  const results: RouteResult[] = [];
  const missing: string[] = [];
  for (const route of routes) {
    for (const method of methodsOf(route)) {
      const key = routeKeyOf(route, method);
      if (ONLY && !ONLY.test(key)) continue;
      const sc = scenarios[key];
      if (!sc) {
        missing.push(key);
        continue;
      }
      try {
        const state = sc.setup ? await sc.setup(world) : undefined;
        const endpoint: number[] = [];
        const dynamo: number[] = [];
        let last: DynamoCall[] = [];
        let lastSent: { command: string; body: string }[] = [];
        let rcu = 0;
        let wcu = 0;
        for (let i = 0; i < WARMUP + ITERATIONS; i++) {
          const prepared = sc.prepare ? await sc.prepare(world, state, i) : undefined;
          const req = sc.request(world, state, prepared, i);
          recorder.take();
          const started = performance.now();
          const res = await (req.client ?? world.account.admin.api).request(req.method, req.path, req.body, req.headers);
          const { calls, sent, overheadMs } = recorder.take();
          const ms = performance.now() - started - overheadMs;
          if (res.status !== (req.status ?? 200)) throw new Error(`${key} answered ${res.status}: ${res.text.slice(0, 300)}`);
          if (process.env.BENCH_DEBUG)
            process.stdout.write(`    ${i}: ${calls.map((c) => `${c.command.replace(/Command$/, '')} r${c.rcu} w${c.wcu}`).join(', ')}\n`);
          if (i < WARMUP) continue;
          endpoint.push(ms);
          dynamo.push(calls.reduce((t, c) => t + c.ms, 0));
          rcu += calls.reduce((t, c) => t + c.rcu, 0);
          wcu += calls.reduce((t, c) => t + c.wcu, 0);
          last = calls;
          lastSent = sent;
        }
        // The same read calls, straight to DynamoDB with the SDK, in the same run.
        const reads = lastSent.filter((c) => isRead(c.command));
        const rawTimes: number[] = [];
        if (reads.length) {
          for (let i = 0; i < WARMUP + ITERATIONS; i++) {
            const started = performance.now();
            for (const c of reads) {
              const Cmd = (ddb as unknown as Record<string, new (input: unknown) => ddb.GetItemCommand>)[c.command];
              await raw.send(new Cmd(JSON.parse(c.body)));
            }
            if (i >= WARMUP) rawTimes.push(performance.now() - started);
          }
        }
        results.push({
          route: key,
          iterations: ITERATIONS,
          endpoint: { p50: r2(pct(endpoint, 50)), p95: r2(pct(endpoint, 95)), p99: r2(pct(endpoint, 99)) },
          dynamo: { p50: r2(pct(dynamo, 50)), p99: r2(pct(dynamo, 99)), calls: last.map((c) => c.command.replace(/Command$/, '')) },
          raw: reads.length ? { p50: r2(pct(rawTimes, 50)), p99: r2(pct(rawTimes, 99)), replayed: reads.length } : null,
          rcu: r2(rcu / ITERATIONS),
          wcu: r2(wcu / ITERATIONS),
        });
        process.stdout.write(`  ${key}: p50 ${r2(pct(endpoint, 50))} ms\n`);
      } catch (err) {
        results.push({
          route: key,
          iterations: 0,
          endpoint: { p50: NaN, p95: NaN, p99: NaN },
          dynamo: { p50: NaN, p99: NaN, calls: [] },
          raw: null,
          rcu: NaN,
          wcu: NaN,
          error: (err as Error).message,
        });
        process.stdout.write(`  ${key}: FAILED ${(err as Error).message}\n`);
      }
    }
  }
  return { results, missing };
}

function coldImport(file: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(String(performance.now() - t));`;
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', AWS_REGION: 'us-east-1' },
    });
    if (r.status !== 0) throw new Error(`import of ${file} failed: ${r.stderr}`);
    times.push(Number(r.stdout));
  }
  return r2(pct(times, 50));
}

async function benchBundles(): Promise<{ functions: BundleResult[]; baseline: BundleResult }> {
  const out = join(ROOT, '.build/bench');
  const bundles = await buildFunctionsSeparately(out, routes, { 'baseline-bare': 'bench/baseline/bare.ts' });
  const all = Object.entries(bundles).map(([name, b]) => ({
    name,
    kib: r2(b.bytes / 1024),
    deployedKib: r2((b.deployedBytes ?? b.bytes) / 1024),
    coldImportMs: coldImport(join(b.dir, 'index.mjs')),
  }));
  const baseline = all.find((b) => b.name === 'baseline-bare')!;
  return { functions: all.filter((b) => b !== baseline).sort((a, b) => a.name.localeCompare(b.name)), baseline };
}

function markdown(
  summary: string,
  routeResults: RouteResult[],
  missing: string[],
  bundles: Awaited<ReturnType<typeof benchBundles>>,
  meta: Record<string, string>,
  pipeline: PipelineResult,
  counts: CountsResult,
  cable: CableResult,
  web: WidgetWebResult,
  reportWrites: ReportWritesResult,
  lists: ListsResult,
  heat: HeatResult,
  scale: ScaleResult | undefined,
  channels?: ChannelsResult,
) {
  const lines: string[] = [];
  lines.push(
    '# Benchmarks',
    '',
    `Measured by \`npm run bench\` on ${meta.date} (${meta.machine}; Node ${process.version}; DynamoDB Local in memory).`,
    '',
  );
  lines.push(summary.trimEnd(), '');
  lines.push(
    `Each route: ${ITERATIONS} timed calls after ${WARMUP} warm-up calls, real HTTP through the local runtime (the same handler modules Lambda runs).`,
    '**DynamoDB in request** is the time the handler spent in its DynamoDB calls (recorded on the SDK client); **raw replay** sends the',
    'same read calls straight to DynamoDB Local with the SDK, in the same run (writes are not replayed: their conditions would fail).',
    "RCU per call come from `ReturnConsumedCapacity: TOTAL`; WCU per call are computed by AWS's billing rules (`bench/billing.ts`) from each",
    'written item before and after the write (DynamoDB Local misreports transactions): 1 KB units per item, doubled in a transaction, plus',
    'one plain write per index copy (two when its key moves).',
    '',
  );
  lines.push(
    '## Routes',
    '',
    '| route | endpoint p50 / p95 / p99 ms | DynamoDB in request p50 / p99 ms | raw replay p50 / p99 ms | DynamoDB calls | RCU / call | WCU / call |',
    '|---|---|---|---|---|---|---|',
  );
  for (const r of routeResults) {
    if (r.error) {
      lines.push(`| \`${r.route}\` | failed: ${r.error.replace(/\|/g, '/').slice(0, 120)} | | | | | |`);
      continue;
    }
    const raw = r.raw ? `${r.raw.p50} / ${r.raw.p99}` : 'no reads';
    lines.push(
      `| \`${r.route}\` | ${r.endpoint.p50} / ${r.endpoint.p95} / ${r.endpoint.p99} | ${r.dynamo.p50} / ${r.dynamo.p99} | ${raw} | ${r.dynamo.calls.join(', ') || 'none'} | ${r.rcu} | ${r.wcu} |`,
    );
  }
  if (missing.length)
    lines.push('', `**Routes without a bench scenario (${missing.length}):** ${missing.map((m) => `\`${m}\``).join(', ')}`);
  if (PARTS.has('counts')) lines.push('', ...countsMarkdown(counts));
  if (scale) lines.push('', ...scaleMarkdown(scale));
  if (PARTS.has('lists')) lines.push('', ...listsMarkdown(lists));
  if (PARTS.has('pipeline')) lines.push('', pipelineMarkdown(pipeline));
  if (PARTS.has('heat'))
    lines.push('', ...heatMarkdown(heat), ...wholeBillMarkdown(heat, largestCountsRow({ counts })?.index?.wcuPerMessage));
  if (PARTS.has('reports')) lines.push('', reportWritesMarkdown(reportWrites));
  if (PARTS.has('cable')) lines.push(cableMarkdown(cable));
  if (PARTS.has('widget')) lines.push('', widgetWebMarkdown(web), '');
  if (channels) lines.push('', channelsMarkdown(channels));
  lines.push('## Bundles and cold import', '');
  lines.push(
    'Minified ESM bundles (AWS SDK included) built as the CDK stack deploys them (a pass per function, code splitting): **KiB** is',
    'what a cold start loads (the entry and the chunks it imports statically), **deployed KiB** the whole function folder (also the',
    'chunks a dynamic `import()` loads on first use). Cold import: median of 3 fresh `node` processes importing the bundle (module',
    'evaluation, no handler call). Targets (docs/cost.md#cold-start): every route ≤ 1.25 × the baseline, the dispatcher ≤ 500 KiB.',
    '',
    `Baseline, a bare handler with SDK document client + middy + JSON body parser + valibot: **${bundles.baseline.kib} KiB (deployed ${bundles.baseline.deployedKib ?? bundles.baseline.kib}), ${bundles.baseline.coldImportMs} ms**.`,
    '',
    'Five largest:',
    '',
    ...[...bundles.functions]
      .sort((a, b) => b.kib - a.kib)
      .slice(0, 5)
      .map((b) => `- ${b.name}: ${b.kib} KiB (${r2(b.kib / bundles.baseline.kib)} × baseline), cold import ${b.coldImportMs} ms`),
    '',
    '| function | KiB | deployed KiB | cold import ms | × baseline |',
    '|---|---|---|---|---|',
  );
  for (const b of bundles.functions)
    lines.push(`| ${b.name} | ${b.kib} | ${b.deployedKib ?? b.kib} | ${b.coldImportMs} | ${r2(b.kib / bundles.baseline.kib)} |`);
  return `${lines.join('\n')}\n`;
}

/** The scale part's figures into results.json and its section of BENCHMARKS.md (before the list pages by inboxes), the rest kept. */
function writeScale(resultsFile: string, markdownFile: string, scale: ScaleResult) {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as BenchResults;
  writeFileSync(resultsFile, `${JSON.stringify({ ...results, scale }, null, 2)}\n`);
  const md = readFileSync(markdownFile, 'utf8');
  const section = scaleMarkdown(scale).join('\n');
  const start = md.indexOf('<!-- scale:start -->');
  const end = md.indexOf('<!-- scale:end -->');
  const at = md.indexOf('## List pages by inboxes');
  const out =
    start >= 0 && end > start
      ? md.slice(0, start) + section + md.slice(end + '<!-- scale:end -->'.length)
      : at >= 0
        ? `${md.slice(0, at)}${section}\n\n${md.slice(at)}`
        : `${md.trimEnd()}\n\n${section}\n`;
  writeFileSync(markdownFile, out);
}

function readPrevious(file: string): PreviousRun | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return { results: JSON.parse(readFileSync(file, 'utf8')) as BenchResults, source: 'the bench/results.json this run replaced' };
  } catch {
    return undefined;
  }
}

async function main() {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env.LOG_LEVEL = 'ERROR';
  // One credential drives every scenario, faster than any client should: limits far above it (and no
  // shared-window writes among the calls measured). docs/api.md#request-limits states what they cost.
  for (const name of ['LIMIT_ACCOUNT', 'LIMIT_CREDENTIAL', 'LIMIT_FILE']) {
    process.env[`${name}_PER_MINUTE`] ??= '1000000';
    process.env[`${name}_BURST`] ??= '100000';
  }
  // Channel inboxes check their credentials with the provider on creation: a stub on 127.0.0.1 answers.
  const providers = await startProviderStub();
  for (const [k, v] of Object.entries(providers.env)) process.env[k] ??= v;
  // The scale part's account stays between runs: its DynamoDB Local is BENCH_SCALE_DYNAMODB (one kept running, in
  // memory: `npm run bench:scale-dynamodb`, five times faster) or on disk in SCALE_DIR; its token key is in SCALE_DIR.
  const rt = await startRuntime({
    port: 0,
    logLevel: 'ERROR',
    ...(PARTS.has('scale') ? { dataDir: SCALE_DIR, dynamodbEndpoint: process.env.BENCH_SCALE_DYNAMODB || undefined } : {}),
  });
  try {
    const { db } = await import('#shared/db/client.ts');
    const raw = new ddb.DynamoDBClient({ region: 'us-east-1', endpoint: rt.dynamodbEndpoint });
    const recorder = instrument(db(), raw);
    const platform = client(rt.baseUrl, rt.platformToken);
    let n = 0;
    const unique = (p = 'b') => `${p}-${Date.now().toString(36)}-${++n}`;
    const seeded = await seedAccountVia(rt.baseUrl, platform, 'Bench account');
    const world: BenchWorld = {
      baseUrl: rt.baseUrl,
      platform,
      account: { id: seeded.accountId, base: seeded.base, admin: seeded.admin, agent: seeded.agent },
      unique,
      pipeline: rt.pipeline,
    };
    // Endpoints are measured alone: the pipeline's own table traffic would be counted against them.
    await rt.pipeline.pause();
    process.stdout.write(`Routes (${ITERATIONS} iterations each):\n`);
    const { results, missing } = PARTS.has('routes') ? await benchRoutes(world, recorder, raw) : { results: [], missing: [] };
    process.stdout.write('Counts scale…\n');
    const counts = PARTS.has('counts')
      ? await measureCounts({ baseUrl: rt.baseUrl, platform, recorder, pipeline: rt.pipeline, log: (l) => process.stdout.write(`${l}\n`) })
      : ({ sizes: [] } as unknown as CountsResult);
    process.stdout.write('Scale…\n');
    const scale = PARTS.has('scale')
      ? await measureScale({ baseUrl: rt.baseUrl, platform, recorder, pipeline: rt.pipeline, log: (l) => process.stdout.write(`${l}\n`) })
      : undefined;
    process.stdout.write('List pages by inboxes…\n');
    const lists = PARTS.has('lists')
      ? await benchLists({ baseUrl: rt.baseUrl, platform, recorder, log: (l) => process.stdout.write(`${l}\n`) })
      : ({ rows: [] } as ListsResult);
    process.stdout.write('Event pipeline…\n');
    const pipeline = PARTS.has('pipeline') ? await benchPipeline(world, rt, recorder) : ({} as PipelineResult);
    process.stdout.write('Partition heat…\n');
    const heat = PARTS.has('heat') ? await benchHeat(world, rt, recorder) : ({ hottest: [] } as unknown as HeatResult);
    if (PARTS.has('heat')) process.stdout.write(`${JSON.stringify(heat)}\n`);
    process.stdout.write('Report writes…\n');
    const reportWrites = PARTS.has('reports') ? await benchReportWrites(world, rt, recorder) : ({} as ReportWritesResult);
    // The per-row report routes on an account of 30 inboxes all active daily (grouped items).
    if (PARTS.has('reports')) reportWrites.rows = await benchReportRows(world, recorder);
    if (PARTS.has('reports')) process.stdout.write(`${JSON.stringify(reportWrites)}\n`);
    process.stdout.write('Realtime (/cable)…\n');
    const cable = PARTS.has('cable') ? await benchCable(world, rt) : ({} as CableResult);
    // The widget's page loads go before the bundles: building and cold-importing every function blocks this
    // process (and so the runtime's server) for minutes, after which reused client sockets race the
    // server's idle timers.
    process.stdout.write('Web widget…\n');
    const web = PARTS.has('widget') ? await benchWidgetWeb(world) : ({} as WidgetWebResult);
    process.stdout.write('Messaging channels…\n');
    const channels = PARTS.has('channels') ? await benchChannels(world, rt, recorder) : undefined;
    if (channels) process.stdout.write(channelsMarkdown(channels));
    process.stdout.write('Bundles and cold imports…\n');
    const bundles = PARTS.has('bundles')
      ? await benchBundles()
      : { functions: [], baseline: { name: 'baseline-bare', kib: 0, coldImportMs: 0 } };
    const meta = { date: new Date().toISOString().slice(0, 10), machine: `${(await import('node:os')).cpus().length} cores` };
    mkdirSync(join(ROOT, 'bench'), { recursive: true });
    const file = join(ROOT, 'bench/results.json');
    // The results this run replaces are the summary's previous run; read before they are overwritten.
    const previous = readPrevious(file);
    const keptScale = scale ?? (previous?.results.scale as ScaleResult | undefined);
    const next: BenchResults = {
      meta,
      iterations: ITERATIONS,
      routes: results,
      missing,
      counts,
      ...(keptScale ? { scale: keptScale } : {}),
      lists,
      pipeline,
      heat,
      reportWrites,
      cable,
      bundles,
      widget: web,
      ...(channels ? { channels } : {}),
    };
    const text = markdown(
      summaryMarkdown(previous, next),
      results,
      missing,
      bundles,
      meta,
      pipeline,
      counts,
      cable,
      web,
      reportWrites,
      lists,
      heat,
      keptScale,
      channels,
    );
    if (COMPLETE) {
      writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`);
      writeFileSync(join(ROOT, 'BENCHMARKS.md'), text);
      process.stdout.write(
        `Wrote BENCHMARKS.md and bench/results.json (${results.length} routes, ${missing.length} without a scenario).\n`,
      );
    } else if (scale && [...PARTS].every((p) => p === 'scale')) {
      // The scale part alone: its figures replace the last ones, the rest of both files stays.
      writeScale(file, join(ROOT, 'BENCHMARKS.md'), scale);
      process.stdout.write(`\n${scaleMarkdown(scale).join('\n')}\nWrote the scale section of BENCHMARKS.md and bench/results.json.\n`);
    } else {
      process.stdout.write(
        `\n${text}\nA partial run (BENCH_PARTS or BENCH_ROUTES): BENCHMARKS.md and bench/results.json are left as they were.\n`,
      );
    }
    if (missing.length || results.some((r) => r.error)) process.exitCode = 1;
  } finally {
    await rt.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${(err as Error).stack}\n`);
  process.exit(1);
});
