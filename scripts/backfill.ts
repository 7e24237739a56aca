import { parseArgs } from 'node:util';
import { TARGET_OPTIONS, useTarget } from './target.ts';

// npm run backfill -- (--data-dir DIR [--dynamodb-endpoint URL] | --table NAME [--region R])
// Adds the index keys that newer versions derive from stored items (shared/db/backfill.ts) to items
// written before them: run it once after an upgrade; it resumes where an interrupted run stopped.

const usage = 'Usage: npm run backfill -- (--data-dir DIR [--dynamodb-endpoint URL] | --table NAME [--region R])';

async function main() {
  const { values } = parseArgs({ options: { ...TARGET_OPTIONS, help: { type: 'boolean', short: 'h' } } });
  if (values.help || !useTarget(values, false)) {
    process.stderr.write(`${usage}\n`);
    process.exit(values.help ? 0 : 2);
  }
  const { backfillAll } = await import('#shared/db/backfill.ts');
  const p = await backfillAll();
  process.stdout.write(
    `backfill: ${p.scanned} items scanned, ${p.updated} given missing index keys, ${p.complete ? 'complete' : 'incomplete (run again)'}\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`Failed: ${(err as Error).message}\n`);
  process.exit(1);
});
