import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LOCAL_DEFAULTS } from '../infra/local/runtime.ts';

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
      'data-dir': { type: 'string' },
      'dynamodb-endpoint': { type: 'string' },
      table: { type: 'string' },
      'secret-arn': { type: 'string' },
      region: { type: 'string' },
      settle: { type: 'string' },
      'no-reseal': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals[0];
  const local = values['data-dir'];
  if (values.help || (command !== 'seal' && command !== 'rotate') || (!local && !(values.table && values['secret-arn']))) {
    process.stderr.write(`${usage}\n`);
    process.exit(values.help ? 0 : 2);
  }
  delete process.env.TOKEN_KEY;
  Object.assign(process.env, {
    AWS_REGION: values.region ?? process.env.AWS_REGION ?? LOCAL_DEFAULTS.region,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    TABLE_NAME: values.table ?? LOCAL_DEFAULTS.tableName,
    ...(local
      ? {
          TOKEN_KEY_FILE: join(local, 'token.key'),
          DYNAMODB_ENDPOINT: values['dynamodb-endpoint'] ?? `http://127.0.0.1:${LOCAL_DEFAULTS.dynamodbPort}`,
          AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? LOCAL_DEFAULTS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
        }
      : { TOKEN_KEY_SECRET_ARN: values['secret-arn'] }),
  });
  const { config } = await import('../shared/config.ts');
  const { resealAll, rotateKey } = await import('../shared/crypto/reseal.ts');
  if (command === 'rotate') {
    const version = await rotateKey();
    process.stdout.write(`key version ${version} is current; older versions stay readable\n`);
    if (values['no-reseal']) return;
    // Processes that loaded the keyring before the rotation seal with the old version until they reload it.
    const settle = values.settle !== undefined ? Number(values.settle) : local ? 5 : config().keyringTtlSeconds;
    await new Promise((r) => setTimeout(r, settle * 1000));
  }
  const p = await resealAll();
  process.stdout.write(`re-seal to key version ${p.version}: ${p.scanned} items scanned, ${p.resealed} re-sealed, ${p.complete ? 'complete' : 'incomplete (run again)'}\n`);
}

main().catch((err) => {
  process.stderr.write(`Failed: ${(err as Error).message}\n`);
  process.exit(1);
});
