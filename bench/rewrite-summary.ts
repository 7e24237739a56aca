import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResults } from './results.ts';
import { replaceSummary, summaryMarkdown, type PreviousRun } from './summary.ts';

// npm run bench:summary: rewrites only the summary at the top of BENCHMARKS.md from bench/results.json,
// without measuring anything. The previous run is the newest committed bench/results.json that differs
// from the current one (so, before a fresh run is committed, the committed one; after, the one before it).
// `--previous <file or git revision>` names another.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS = 'bench/results.json';

const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });

function previousFromGit(current: string): PreviousRun | undefined {
  let commits: string[];
  try {
    commits = git('log', '--format=%H', '--', RESULTS).split('\n').filter(Boolean);
  } catch {
    return undefined;
  }
  for (const commit of commits) {
    const text = git('show', `${commit}:${RESULTS}`);
    if (text === current) continue;
    return { results: JSON.parse(text) as BenchResults, source: `${RESULTS} of commit ${commit.slice(0, 7)}` };
  }
  return undefined;
}

function previousNamed(name: string): PreviousRun {
  try {
    return { results: JSON.parse(readFileSync(name, 'utf8')) as BenchResults, source: name };
  } catch {
    return { results: JSON.parse(git('show', `${name}:${RESULTS}`)) as BenchResults, source: `${RESULTS} of ${name}` };
  }
}

const at = process.argv.indexOf('--previous');
const current = readFileSync(join(ROOT, RESULTS), 'utf8');
const previous = at > 0 && process.argv[at + 1] ? previousNamed(process.argv[at + 1]) : previousFromGit(current);
const file = join(ROOT, 'BENCHMARKS.md');
writeFileSync(file, replaceSummary(readFileSync(file, 'utf8'), summaryMarkdown(previous, JSON.parse(current) as BenchResults)));
process.stdout.write(`Rewrote the summary of BENCHMARKS.md (${previous ? `compared with ${previous.source}` : 'no previous run'}).\n`);
