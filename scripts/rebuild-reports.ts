import { parseArgs } from 'node:util';
import { TARGET_OPTIONS, useTarget } from './target.ts';

// npm run reports:rebuild -- --account ID [--account ID …] (--data-dir DIR | --table NAME [--region R])
// Recomputes the report aggregates of the given accounts from their stored facts (see
// shared/domain/reports/rebuild.ts), on the local runtime's table or a deployed one.

const usage =
  'Usage: npm run reports:rebuild -- --account ID [--account ID …] (--data-dir DIR [--dynamodb-endpoint URL] | --table NAME [--region R])\n';

async function main() {
  const { values } = parseArgs({
    options: { ...TARGET_OPTIONS, account: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } },
  });
  const ids = (values.account ?? []).map(Number);
  if (values.help || !ids.length || ids.some((n) => !Number.isInteger(n) || n <= 0) || !useTarget(values, false)) {
    process.stderr.write(usage);
    process.exit(values.help ? 0 : 2);
  }
  const { rebuildAccountReports } = await import('#shared/domain/reports/rebuild.ts');
  for (const id of ids) {
    const r = await rebuildAccountReports(id);
    process.stdout.write(`account ${id}: ${r.facts} facts, ${r.items} aggregate items written, ${r.removed} removed\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`Rebuild failed: ${(err as Error).message}\n`);
  process.exit(1);
});
