import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import { buildFunctions, buildFunctionsSeparately, ROOT } from './build.ts';

// `npm run package`: the construct as an npm package another CDK app installs and imports.
//   <out>/package.json    name, version, exports, peer dependencies (aws-cdk-lib, constructs) only
//   <out>/lib/index.js    the construct code (infra/index.ts), one ES module, CDK left to the app
//   <out>/lib/functions/  every function bundle, found relative to lib/index.js wherever it is installed
//   <out>/types/          declarations (of infra/index.ts and what it names)
// `npm publish dist/package` publishes it; `npm pack dist/package` makes a tarball.

export const DEFAULT_PACKAGE_DIR = 'dist/package';

/** `separately`: each function bundled in a pass of its own, as deployed (infra/build.ts); the test's package takes the single pass. */
export async function buildPackage(
  outDir: string = DEFAULT_PACKAGE_DIR,
  { separately = true }: { separately?: boolean } = {},
): Promise<{ dir: string; functions: number }> {
  const out = isAbsolute(outDir) ? outDir : join(ROOT, outDir);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'lib'), { recursive: true });
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

  buildSync({
    absWorkingDir: ROOT,
    entryPoints: ['infra/index.ts'],
    outfile: join(out, 'lib/index.js'),
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    // The app's own CDK: one copy of aws-cdk-lib and constructs, or constructs would not mix.
    external: ['aws-cdk-lib', 'aws-cdk-lib/*', 'constructs'],
    // Bundled CommonJS dependencies call require() for Node built-ins; ESM has none unless defined.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  const functionsDir = join(out, 'lib/functions');
  const functions = Object.keys(separately ? await buildFunctionsSeparately(functionsDir) : buildFunctions(functionsDir)).length;

  const typescript = dirname(createRequire(import.meta.url).resolve('typescript/package.json'));
  const tsc = join(typescript, JSON.parse(readFileSync(join(typescript, 'package.json'), 'utf8')).bin.tsc);
  execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.package.json'), '--outDir', join(out, 'types')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  // Declarations keep the source's `.ts` specifiers; `.js` is what resolves to a `.d.ts` in any consumer.
  for (const file of walk(join(out, 'types'))) {
    writeFileSync(file, readFileSync(file, 'utf8').replace(/(from\s+'\.{1,2}\/[^']+)\.ts'/g, "$1.js'"));
  }

  const peer = (name: string) => root.peerDependencies?.[name] ?? root.dependencies?.[name] ?? root.devDependencies?.[name];
  const manifest = {
    name: root.name,
    version: root.version,
    description: 'Chatwoot-compatible serverless messaging API as a CDK construct',
    license: root.license ?? 'UNLICENSED',
    type: 'module',
    engines: root.engines,
    exports: { '.': { types: './types/infra/index.d.ts', default: './lib/index.js' } },
    types: './types/infra/index.d.ts',
    peerDependencies: { 'aws-cdk-lib': peer('aws-cdk-lib'), constructs: peer('constructs') },
  };
  writeFileSync(join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return { dir: out, functions };
}

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (name.endsWith('.d.ts')) yield path;
  }
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isMain) {
  const { dir, functions } = await buildPackage(process.argv[2]);
  console.log(`${relative(process.cwd(), dir) || '.'}: construct, declarations and ${functions} function bundles`);
}
