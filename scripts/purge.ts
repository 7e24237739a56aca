import { parseArgs } from 'node:util';
import { TARGET_OPTIONS, useTarget } from './target.ts';

// npm run purge -- (--data-dir DIR [--dynamodb-endpoint URL] | --table NAME [--region R])
// Finishes every pending purge of a deleted account or inbox (shared/domain/purge) here: the rerun for a
// purge whose pipeline run stopped (a crash, a dead-lettered queue message). Safe to run at any time,
// also while the pipeline works on the same jobs: every chunk deletes what is left.

const usage = 'Usage: npm run purge -- (--data-dir DIR [--dynamodb-endpoint URL] | --table NAME [--region R])';

async function main() {
  const { values } = parseArgs({ options: { ...TARGET_OPTIONS, help: { type: 'boolean', short: 'h' } } });
  if (values.help || !useTarget(values, false)) {
    process.stderr.write(`${usage}\n`);
    process.exit(values.help ? 0 : 2);
  }
  const { resumePurges } = await import('#shared/domain/purge/service.ts');
  const r = await resumePurges();
  process.stdout.write(`purge: ${r.jobs} pending jobs finished, ${r.deleted} items deleted\n`);
}

main().catch((err) => {
  process.stderr.write(`Failed: ${(err as Error).message}\n`);
  process.exit(1);
});
