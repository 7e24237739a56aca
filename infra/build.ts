import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { availableParallelism } from 'node:os';
import { type AnyNode, parse } from 'acorn';
import { type BuildOptions, type BuildResult, build, buildSync, type Metafile, type Plugin, transform } from 'esbuild';
import type { FunctionBundles } from './bundles.ts';
import { CABLE_FUNCTION_NAMES, CABLE_HANDLERS, CABLE_SERVER, CABLE_SERVER_DOCKERFILE } from './cable.ts';
import { EVENT_FUNCTION_NAMES, EVENT_HANDLERS } from './pipeline.ts';
import { functionName, routes, type Route } from './routes.ts';

// Every Lambda bundle, built in ONE esbuild pass: a NodejsFunction per route would bundle one by one
// (~0.3 s each), which makes synth time grow with the route table.

/** Repository root: handler paths in routes.ts and pipeline.ts are relative to it. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * What the Node 22 runtime supports beyond esbuild's own table for `node22`: esbuild lowers a regular expression with a
 * Unicode property escape (`\p{Emoji_Presentation}`) to a `new RegExp(…)` call, which it must then keep even where
 * nothing uses it (valibot's emoji pattern, ~0.45 KiB in every function that validates). Node has had them since 10.
 */
const SUPPORTED = { 'regexp-unicode-property-escapes': true };

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

// Some dependencies call require() at run time; ESM output has none unless the banner defines it. Only the files
// that name `require` get it (most chunks do not: the banner would cost each of them a createRequire at cold start).
const BANNER = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/**
 * Bundles every route handler (routes.ts) and every event handler (pipeline.ts) in one esbuild call into
 * `<outDir>/<functionName>/index.mjs`: ESM for node22, minified, no source map, nothing external (the
 * AWS SDK is bundled, so the deployed code is the tested code). Synchronous, so a CDK app can call it
 * before it builds the stack. Stable API: the bench imports it to measure bundle sizes.
 *
 * Code splitting is on, so a dynamic `import()` (the S3 client, Secrets Manager, the multipart parser, the
 * mail libraries) becomes a chunk loaded on first use instead of at cold start. Each function's folder is
 * self-contained all the same: its `index.mjs` plus `chunks/` holding every chunk it can reach (static or
 * dynamic), so the folder is the Lambda asset as before (handler `index.handler`).
 *
 * @param outDir output folder, absolute or relative to the repository root
 * @param routeTable routes to build (defaults to THE route table)
 * @param extra more entry points, name → module relative to the repository root (e.g. a bench baseline),
 *   built in the same pass with the same options
 * @returns functionName → { dir, bytes, deployedBytes }
 */
export function buildFunctions(
  outDir: string = DEFAULT_OUT_DIR,
  routeTable: Route[] = routes,
  extra: Record<string, string> = {},
): FunctionBundles {
  const out = isAbsolute(outDir) ? outDir : join(ROOT, outDir);
  const entries = entryPoints(routeTable, extra);
  return layOut(buildSync(buildOptions(entries, out)), Object.keys(entries), out);
}

/**
 * The same bundles, each function in an esbuild pass of its own (several at once): what the CDK app deploys and
 * the bench measures. esbuild splits code into chunks by file, each holding what every function that imports
 * the file uses from it, so in one pass a route loads the union of what ~300 functions take from each shared
 * module (~110 KiB more at the median, docs/cost.md#cold-start); alone, a function's chunks hold only its own
 * code, and its dynamic imports stay chunks loaded on first use. Slower (a pass per function), so the test
 * suite's syntheses use the single pass: same sources, same folders, only the chunk boundaries differ.
 */
export async function buildFunctionsSeparately(
  outDir: string = DEFAULT_OUT_DIR,
  routeTable: Route[] = routes,
  extra: Record<string, string> = {},
): Promise<FunctionBundles> {
  const out = isAbsolute(outDir) ? outDir : join(ROOT, outDir);
  const queue = Object.entries(entryPoints(routeTable, extra));
  const bundles: FunctionBundles = {};
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [name, handler] = next;
      Object.assign(bundles, layOut(await build(buildOptions({ [name]: handler }, out, { isolateLazy: true })), [name], out));
    }
  };
  await Promise.all(Array.from({ length: Math.max(2, availableParallelism()) }, worker));
  return Object.fromEntries(Object.entries(bundles).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * AWS SDK clients that functions load on first use (a dynamic `import()`), each built apart into the function's
 * `lazy/<name>.mjs`: one self-contained file with its own copy of the SDK core. Left to code splitting, a lazy client
 * shares the SDK core's files (their barrels) with the function, and a chunk holds everything any importer uses of a
 * file, so the client's own protocol code came along into the cold start: S3's XML protocol, checksums and waiters
 * (~25 KiB) in every route that may store a file. The packages of one group share a file (the presigner works on the
 * S3 client's objects; Powertools' secrets provider on Secrets Manager's).
 *
 * The SDK does the same to itself: its default credential chain imports every source but the environment on first use
 * (a profile file, SSO, a process, a web identity token through STS, the container or instance endpoint). A Lambda
 * function takes its credentials from the environment and never loads them; the socket server on Fargate loads them
 * once. Left to code splitting, their clients' protocols (STS's query protocol and XML parser, SSO's REST JSON and HTTP
 * bindings) came into every function's cold start, ~30 KiB; built apart as one group, they stay out.
 */
const LAZY_GROUPS: Record<string, string[]> = {
  s3: ['@aws-sdk/client-s3', '@aws-sdk/s3-request-presigner'],
  secrets: ['@aws-sdk/client-secrets-manager', '@aws-lambda-powertools/parameters/secrets'],
  sesv2: ['@aws-sdk/client-sesv2'],
  scheduler: ['@aws-sdk/client-scheduler'],
  'apigw-management': ['@aws-sdk/client-apigatewaymanagementapi'],
  credentials: [
    '@aws-sdk/credential-provider-ini',
    '@aws-sdk/credential-provider-sso',
    '@aws-sdk/credential-provider-process',
    '@aws-sdk/credential-provider-web-identity',
    '@aws-sdk/credential-provider-http',
    '@smithy/credential-provider-imds',
  ],
};
const LAZY_OF = new Map(Object.entries(LAZY_GROUPS).flatMap(([name, pkgs]) => pkgs.map((p) => [p, name] as const)));
/** The specifier a lazy group's import gets in the build's output; laid out, the function folder's lazy folder (from the entry or a chunk). */
const LAZY_MARK = '__lazy__/';

const isolateLazyClients: Plugin = {
  name: 'isolate-lazy-clients',
  setup(b) {
    b.onResolve({ filter: /^@(aws-sdk|aws-lambda-powertools|smithy)\// }, (args) => {
      const group = args.kind === 'dynamic-import' ? LAZY_OF.get(args.path) : undefined;
      return group ? { path: `${LAZY_MARK}${group}.mjs`, external: true } : undefined;
    });
  },
};

/**
 * The repository's shared modules do nothing when imported but define things (docs/architecture.md#imports-define-only):
 * declared side-effect free, a module none of whose exports a function uses is left out of its bundle. esbuild cannot
 * tell on its own: a top-level call (a valibot schema built, a constant table) counts as a side effect, so every module
 * a function reaches came whole, e.g. an area's every input schema into a route that only shows a record.
 */
const SHARED = `${ROOT}/shared/`;
const sharedDefinesOnly: Plugin = {
  name: 'shared-defines-only',
  setup(b) {
    b.onResolve({ filter: /^(#shared\/|\.)/ }, async ({ path, kind, importer, resolveDir, pluginData }) => {
      if (pluginData === sharedDefinesOnly || importer.includes('/node_modules/')) return undefined;
      const r = await b.resolve(path, { kind, importer, resolveDir, pluginData: sharedDefinesOnly });
      return !r.errors.length && !r.external && r.path.startsWith(SHARED) ? { path: r.path, sideEffects: false } : undefined;
    });
  },
};

/**
 * The same rule read inside a module: a top-level declaration of `shared/` only defines, so the per-function build
 * wraps what its initializer computes at load in a function call marked pure, and a declaration no code of the
 * function uses is left out with the imports only it needed. esbuild keeps an unused `const S = v.object({…})`
 * otherwise: it cannot tell that a call (valibot marks its builders free of side effects, which esbuild does not carry
 * across modules), a property read (`NewContactSchema.entries.email`, a getter could run), a spread or a template
 * (`${TYPES.join(', ')}`, a `toString` could run) has none, so a route that validates one body of an area carried every
 * body schema the area's file defines and the files those took fields from. Minified, the wrapper is inlined again.
 */
const pureText = new Map<string, string>();
const sharedDefinitionsPure: Plugin = {
  name: 'shared-definitions-pure',
  setup(b) {
    b.onLoad({ filter: /\/shared\/.*\.ts$/ }, async ({ path }) => {
      if (!path.startsWith(SHARED)) return undefined;
      let contents = pureText.get(path);
      if (contents === undefined) pureText.set(path, (contents = await markDefinitionsPure(path)));
      return { contents, loader: 'js' };
    });
  },
};

/** Whether esbuild can tell on its own that computing `node` has no effect (nothing called, read off or spread). */
function plain(node: AnyNode): boolean {
  switch (node.type) {
    case 'Literal':
    case 'Identifier':
    case 'ArrowFunctionExpression':
    case 'FunctionExpression':
      return true;
    case 'TemplateLiteral':
      return node.expressions.length === 0;
    case 'UnaryExpression':
      return node.operator !== 'delete' && plain(node.argument);
    case 'BinaryExpression':
    case 'LogicalExpression':
      return node.left.type !== 'PrivateIdentifier' && plain(node.left) && plain(node.right);
    case 'ConditionalExpression':
      return plain(node.test) && plain(node.consequent) && plain(node.alternate);
    case 'ArrayExpression':
      return node.elements.every((e) => e === null || (e.type !== 'SpreadElement' && plain(e)));
    case 'ObjectExpression':
      return node.properties.every((p) => p.type === 'Property' && !p.computed && plain(p.value));
    default:
      return false;
  }
}

/** Whether `node` awaits at the module's top level (a wrapper function could not). */
function awaits(node: AnyNode): boolean {
  if (node.type === 'AwaitExpression') return true;
  if (/Function/.test(node.type)) return false;
  return Object.values(node).some((value) =>
    (Array.isArray(value) ? value : [value]).some((c) => c && typeof c === 'object' && typeof c.type === 'string' && awaits(c)),
  );
}

/**
 * The SDK's clients import their whole `package.json` (2.3 KiB for DynamoDB's, in every function) to read its version
 * for the user agent; `version` is all any of them reads, so that is all the bundle keeps.
 */
const sdkPackageVersion: Plugin = {
  name: 'sdk-package-version',
  setup(b) {
    b.onLoad({ filter: /\/node_modules\/@(aws-sdk|smithy)\/[^/]+\/package\.json$/ }, ({ path }) => ({
      contents: JSON.stringify({ version: JSON.parse(readFileSync(path, 'utf8')).version }),
      loader: 'json',
    }));
  },
};

/** A shared module as JavaScript, what each top-level declaration computes at load wrapped in a pure call. */
async function markDefinitionsPure(path: string): Promise<string> {
  const { code } = await transform(readFileSync(path, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node22',
    supported: SUPPORTED,
    sourcefile: path,
  });
  const inserts: [number, string][] = [];
  for (let statement of parse(code, { ecmaVersion: 'latest', sourceType: 'module' }).body) {
    if (statement.type === 'ExportNamedDeclaration' && statement.declaration) statement = statement.declaration;
    if (statement.type !== 'VariableDeclaration') continue;
    for (const { init } of statement.declarations)
      if (init && !plain(init) && !awaits(init)) inserts.push([init.start, '/* @__PURE__ */ (() => ('], [init.end, '))()']);
  }
  let out = code;
  for (const [at, text] of inserts.sort((x, y) => y[0] - x[0])) out = `${out.slice(0, at)}${text}${out.slice(at)}`;
  return out;
}

const lazyText = new Map<string, string>();
/** A lazy group's file (built once per process). */
function lazyGroup(name: string): string {
  let text = lazyText.get(name);
  if (text === undefined) {
    const out = buildSync({
      absWorkingDir: ROOT,
      stdin: { contents: LAZY_GROUPS[name].map((p) => `export * from '${p}';`).join('\n'), resolveDir: ROOT, loader: 'js' },
      bundle: true,
      write: false,
      platform: 'node',
      target: 'node22',
      supported: SUPPORTED,
      format: 'esm',
      mainFields: ['module', 'main'],
      minify: true,
      legalComments: 'none',
      logLevel: 'warning',
    }).outputFiles[0].text;
    text = /\brequire\b/.test(out) ? `${BANNER}\n${out}` : out;
    lazyText.set(name, text);
  }
  return text;
}

/**
 * esbuild options of a build of `entries` (functionName → module) into `out`: every build above uses them; the passes
 * per function isolate the lazy clients (LAZY_GROUPS).
 */
export function buildOptions(entries: Record<string, string>, out: string, opts: { isolateLazy?: boolean } = {}) {
  return {
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(Object.entries(entries).map(([name, handler]) => [`${name}/index`, handler])),
    outdir: out,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    chunkNames: `${CHUNKS}/[name]-[hash]`,
    write: false,
    platform: 'node',
    target: 'node22',
    supported: SUPPORTED,
    format: 'esm',
    // The SDK's ES builds tree-shake far better than its CommonJS ones.
    mainFields: ['module', 'main'],
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
    // esbuild runs plugins only in its asynchronous API: the single pass (buildSync) keeps lazy clients as chunks and
    // takes the shared modules it reaches whole.
    plugins: opts.isolateLazy ? [isolateLazyClients, sharedDefinesOnly, sharedDefinitionsPure, sdkPackageVersion] : [],
  } satisfies BuildOptions;
}

/** Writes each named function's folder from a build's output: its entry as `index.mjs` and the chunks it can reach. */
function layOut(result: BuildResult<{ write: false; metafile: true }>, names: string[], out: string): FunctionBundles {
  const files = new Map(
    result.outputFiles.map((f) => [relativeOutput(f.path), /\brequire\b/.test(f.text) ? `${BANNER}\n${f.text}` : f.text]),
  );
  const outputs = result.metafile.outputs;
  const bundles: FunctionBundles = {};
  for (const name of names) {
    const dir = join(out, name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, CHUNKS), { recursive: true });
    const entry = relativeOutput(join(dir, 'index.mjs'));
    const coldStart = reachable(outputs, entry, false);
    const deployed = reachable(outputs, entry, true);
    const lazy = new Set<string>();
    for (const file of deployed) {
      // The entry imports its chunks from the parent folder (esbuild puts the chunks folder beside the function
      // folders): here they sit inside the function's folder. Chunks import each other as `./…`, which holds in either layout.
      const text = files.get(file)!;
      for (const m of text.matchAll(/"__lazy__\/([\w-]+)\.mjs"/g)) lazy.add(m[1]);
      if (file === entry)
        writeFileSync(join(dir, 'index.mjs'), text.replaceAll(`"../${CHUNKS}/`, `"./${CHUNKS}/`).replaceAll(`"${LAZY_MARK}`, '"./lazy/'));
      else writeFileSync(join(dir, CHUNKS, file.slice(file.lastIndexOf('/') + 1)), text.replaceAll(`"${LAZY_MARK}`, '"../lazy/'));
    }
    if (lazy.size) mkdirSync(join(dir, 'lazy'));
    for (const group of lazy) writeFileSync(join(dir, 'lazy', `${group}.mjs`), lazyGroup(group));
    const size = (set: Set<string>) => [...set].reduce((sum, file) => sum + Buffer.byteLength(files.get(file)!), 0);
    const lazyBytes = [...lazy].reduce((sum, group) => sum + Buffer.byteLength(lazyGroup(group)), 0);
    bundles[name] = { dir, bytes: size(coldStart), deployedBytes: size(deployed) + lazyBytes };
  }
  if (bundles[CABLE_SERVER.name]) writeFileSync(join(bundles[CABLE_SERVER.name].dir, 'Dockerfile'), CABLE_SERVER_DOCKERFILE);
  return bundles;
}

/** Folder of the chunks, inside each function's folder. */
const CHUNKS = 'chunks';

/** The output files `entry` loads: by static imports only (cold start), or by dynamic ones too (what it may load). */
export function reachable(outputs: Metafile['outputs'], entry: string, dynamic: boolean): Set<string> {
  const seen = new Set([entry]);
  const queue = [entry];
  for (let file = queue.pop(); file; file = queue.pop()) {
    for (const { path, kind, external } of outputs[file].imports) {
      if (external || seen.has(path) || !outputs[path] || (kind === 'dynamic-import' && !dynamic)) continue;
      seen.add(path);
      queue.push(path);
    }
  }
  return seen;
}

// esbuild keys metafile outputs by path relative to absWorkingDir (`../` for a folder outside it), with forward slashes.
const relativeOutput = (file: string) => relative(ROOT, file).split('\\').join('/');

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;

if (isMain) {
  const started = performance.now();
  const bundles = await buildFunctionsSeparately(process.argv[2]);
  const ms = Math.round(performance.now() - started);
  const rows = Object.entries(bundles).sort(([a], [b]) => a.localeCompare(b));
  const width = Math.max(...rows.map(([name]) => name.length));
  for (const [name, { bytes }] of rows) console.log(`${name.padEnd(width)}  ${(bytes / 1024).toFixed(1).padStart(8)} KiB`);
  const total = rows.reduce((sum, [, b]) => sum + b.bytes, 0);
  console.log(`${rows.length} functions, ${(total / 1024 / 1024).toFixed(2)} MiB in ${ms} ms`);
}
