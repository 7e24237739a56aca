import { parseArgs } from 'node:util';
import { LOCAL_DEFAULTS } from '../infra/local/runtime.ts';

// npm run reports:rebuild -- --account ID [--account ID …] [--table NAME] [--region R] [--dynamodb-endpoint URL]
// Recomputes the report aggregates of the given accounts from their stored facts (see
// shared/domain/reports/rebuild.ts). `--dynamodb-endpoint` points it at the local runtime's DynamoDB Local.

async function main() {
  const { values } = parseArgs({
    options: {
      account: { type: 'string', multiple: true },
      table: { type: 'string' },
      region: { type: 'string' },
      'dynamodb-endpoint': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const ids = (values.account ?? []).map(Number);
  if (values.help || !ids.length || ids.some((n) => !Number.isInteger(n) || n <= 0)) {
    process.stderr.write('Usage: npm run reports:rebuild -- --account ID [--account ID …] [--table NAME] [--region R] [--dynamodb-endpoint URL]\n');
    process.exit(values.help ? 0 : 2);
  }
  Object.assign(process.env, {
    TABLE_NAME: values.table ?? process.env.TABLE_NAME ?? LOCAL_DEFAULTS.tableName,
    AWS_REGION: values.region ?? process.env.AWS_REGION ?? LOCAL_DEFAULTS.region,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...(values['dynamodb-endpoint'] ? { DYNAMODB_ENDPOINT: values['dynamodb-endpoint'] } : {}),
  });
  if (values['dynamodb-endpoint']) {
    process.env.AWS_ACCESS_KEY_ID ??= LOCAL_DEFAULTS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  }
  const { rebuildAccountReports } = await import('../shared/domain/reports/rebuild.ts');
  for (const id of ids) {
    const r = await rebuildAccountReports(id);
    process.stdout.write(`account ${id}: ${r.facts} facts, ${r.items} aggregate items written, ${r.removed} removed\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`Rebuild failed: ${(err as Error).message}\n`);
  process.exit(1);
});
