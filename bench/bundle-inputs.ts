import { build } from 'esbuild';
import { buildOptions, entryPoints, ROOT, reachable } from '../infra/build.ts';

// What a function's cold start loads, by source: `npm run bench:bundle-inputs -- <name part>…` builds each matching
// function alone (as the CDK app and the bench's bundles part do), follows its entry's static imports through the
// chunks, and prints KiB per package (node_modules) or per source file, averaged over the functions built, with how
// many functions carry it. No name parts: every sixth function. `FILES=1` splits packages into files, `TOP=n` rows.
// The baseline is `baseline-bare`.

const parts = process.argv.slice(2);
const entries = Object.entries(entryPoints(undefined, { 'baseline-bare': 'bench/baseline/bare.ts' }));
const chosen = parts.length ? entries.filter(([name]) => parts.some((p) => name.includes(p))) : entries.filter((_, i) => i % 6 === 0);
const sources = new Map<string, { bytes: number; functions: number }>();

for (const [name, handler] of chosen) {
  const { metafile } = await build({ ...buildOptions({ [name]: handler }, `${ROOT}/.build/inputs`, { isolateLazy: true }), write: false });
  const outputs = metafile.outputs;
  const entry = Object.keys(outputs).find((k) => k.endsWith(`${name}/index.mjs`))!;
  const mine = new Map<string, number>();
  for (const file of reachable(outputs, entry, false))
    for (const [input, { bytesInOutput }] of Object.entries(outputs[file].inputs)) {
      const key = !input.includes('node_modules/')
        ? input
        : process.env.FILES
          ? input.replace(/^.*node_modules\//, '')
          : input.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1');
      mine.set(key, (mine.get(key) ?? 0) + bytesInOutput);
    }
  for (const [key, bytes] of mine) {
    const s = sources.get(key) ?? { bytes: 0, functions: 0 };
    sources.set(key, { bytes: s.bytes + bytes, functions: s.functions + 1 });
  }
  if (parts.length) console.log(`${name}: ${([...mine.values()].reduce((a, b) => a + b, 0) / 1024).toFixed(1)} KiB`);
}

const rows = [...sources].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, Number(process.env.TOP ?? 50));
console.log(`KiB (mean of ${chosen.length}) · functions · source`);
for (const [key, { bytes, functions }] of rows)
  console.log(`${(bytes / chosen.length / 1024).toFixed(1).padStart(7)} ${String(functions).padStart(5)}  ${key}`);
