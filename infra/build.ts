import { statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import type { FunctionBundles } from './bundles.ts';
import { CABLE_FUNCTION_NAMES, CABLE_HANDLERS, CABLE_SERVER, CABLE_SERVER_DOCKERFILE } from './cable.ts';
import { EVENT_FUNCTION_NAMES, EVENT_HANDLERS } from './pipeline.ts';
import { functionName, routes, type Route } from './routes.ts';

// Every Lambda bundle, built in ONE esbuild pass: a NodejsFunction per route would bundle one by one
// (~0.3 s each), which makes synth time grow with the route table.

/** Repository root: handler paths in routes.ts and pipeline.ts are relative to it. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Default output folder (gitignored), relative to the repository root. */
export const DEFAULT_OUT_DIR = '.build/functions';

export { EVENT_FUNCTION_NAMES } from './pipeline.ts';
export type { FunctionBundle, FunctionBundles } from './bundles.ts';

/** functionName → handler module (relative to ROOT) for every route row, every event handler and the extras. */
export function entryPoints(routeTable: Route[] = routes, extra: Record<string, string> = {}): Record<string, string> {
  const entries: Record<string, string> = {};
  const add = (name: string, handler: string) => {
    if (entries[name] && entries[name] !== handler) throw new Error(`Function name ${name} is used by ${entries[name]} and ${handler}`);
    entries[name] = handler;
  };
  for (const route of routeTable) add(functionName(route), route.handler);
  for (const [key, handler] of Object.entries(EVENT_HANDLERS)) add(EVENT_FUNCTION_NAMES[key as keyof typeof EVENT_HANDLERS], handler);
  for (const [key, handler] of Object.entries(CABLE_HANDLERS)) add(CABLE_FUNCTION_NAMES[key as keyof typeof CABLE_HANDLERS], handler);
  // Not a function: the Fargate socket server's bundle, built the same way (its Dockerfile is added beside it).
  add(CABLE_SERVER.name, CABLE_SERVER.entry);
  for (const [name, handler] of Object.entries(extra)) add(name, handler);
  return entries;
}

// Some dependencies call require() at run time; ESM output has none unless the banner defines it.
const BANNER = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/**
 * Bundles every route handler (routes.ts) and every event handler (pipeline.ts) in one esbuild call into
 * `<outDir>/<functionName>/index.mjs`: ESM for node22, minified, no source map, nothing external (the
 * AWS SDK is bundled, so the deployed code is the tested code). Synchronous, so a CDK app can call it
 * before it builds the stack. Stable API: the bench imports it to measure bundle sizes.
 *
 * @param outDir output folder, absolute or relative to the repository root
 * @param routeTable routes to build (defaults to THE route table)
 * @param extra more entry points, name → module relative to the repository root (e.g. a bench baseline),
 *   built in the same pass with the same options
 * @returns functionName → { dir, bytes }
 */
export function buildFunctions(
  outDir: string = DEFAULT_OUT_DIR,
  routeTable: Route[] = routes,
  extra: Record<string, string> = {},
): FunctionBundles {
  const out = isAbsolute(outDir) ? outDir : join(ROOT, outDir);
  const entries = entryPoints(routeTable, extra);
  const result = buildSync({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(Object.entries(entries).map(([name, handler]) => [`${name}/index`, handler])),
    outdir: out,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    // The SDK's ES builds tree-shake far better than its CommonJS ones.
    mainFields: ['module', 'main'],
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    banner: { js: BANNER },
    metafile: true,
    logLevel: 'warning',
  });
  const bundles: FunctionBundles = {};
  for (const name of Object.keys(entries)) {
    const dir = join(out, name);
    const file = join(dir, 'index.mjs');
    const meta = result.metafile.outputs[relativeOutput(file)];
    bundles[name] = { dir, bytes: meta?.bytes ?? statSync(file).size };
  }
  if (bundles[CABLE_SERVER.name]) writeFileSync(join(bundles[CABLE_SERVER.name].dir, 'Dockerfile'), CABLE_SERVER_DOCKERFILE);
  return bundles;
}

// esbuild keys metafile outputs by path relative to absWorkingDir, with forward slashes.
const relativeOutput = (file: string) =>
  file
    .slice(ROOT.length + 1)
    .split('\\')
    .join('/');

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;

if (isMain) {
  const started = performance.now();
  const bundles = buildFunctions(process.argv[2]);
  const ms = Math.round(performance.now() - started);
  const rows = Object.entries(bundles).sort(([a], [b]) => a.localeCompare(b));
  const width = Math.max(...rows.map(([name]) => name.length));
  for (const [name, { bytes }] of rows) console.log(`${name.padEnd(width)}  ${(bytes / 1024).toFixed(1).padStart(8)} KiB`);
  const total = rows.reduce((sum, [, b]) => sum + b.bytes, 0);
  console.log(`${rows.length} functions, ${(total / 1024 / 1024).toFixed(2)} MiB in ${ms} ms`);
}
