import { parseArgs } from 'node:util';
import { TARGET_OPTIONS, useTarget } from './target.ts';

// npm run seal-secrets -- [target]   seals the secrets stored in clear (and moves sealed ones to the current key)
// npm run rotate-key -- [target]     adds a key version, waits until every process has loaded it, re-seals
// target: --data-dir DIR [--dynamodb-endpoint URL]                (the local runtime: `npm start -- --data-dir DIR`)
//         --table NAME --secret-arn ARN [--region R]              (deployed: AWS credentials from the environment)
// Both resume an interrupted re-seal; run them again until they print "complete".

const usage = `Usage:
  npm run seal-secrets -- (--data-dir DIR [--dynamodb-endpoint URL] | --table NAME --secret-arn ARN [--region R])
  npm run rotate-key   -- (same target) [--settle SECONDS] [--no-reseal]`;

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      ...TARGET_OPTIONS,
      settle: { type: 'string' },
      'no-reseal': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals[0];
  const local = values['data-dir'];
  if (values.help || (command !== 'seal' && command !== 'rotate') || !useTarget(values, true)) {
    process.stderr.write(`${usage}\n`);
    process.exit(values.help ? 0 : 2);
  }
  const { config } = await import('#shared/config.ts');
  const { resealAll, rotateKey } = await import('#shared/db/reseal.ts');
  if (command === 'rotate') {
    const version = await rotateKey();
    process.stdout.write(`key version ${version} is current; older versions stay readable\n`);
    if (values['no-reseal']) return;
    // Processes that loaded the keyring before the rotation seal with the old version until they reload it.
    const settle = values.settle !== undefined ? Number(values.settle) : local ? 5 : config().keyringTtlSeconds;
    await new Promise((r) => setTimeout(r, settle * 1000));
  }
  const p = await resealAll();
  process.stdout.write(
    `re-seal to key version ${p.version}: ${p.scanned} items scanned, ${p.resealed} re-sealed, ${p.complete ? 'complete' : 'incomplete (run again)'}\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`Failed: ${(err as Error).message}\n`);
  process.exit(1);
});
