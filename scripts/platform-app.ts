import { parseArgs } from 'node:util';
import { LOCAL_DEFAULTS } from '../infra/local/runtime.ts';

// npm run platform-app -- create --name NAME [--table TABLE --region REGION]
// Without --table it talks to the DynamoDB Local of a running `npm start` (DYNAMODB_PORT, default 8000);
// with --table it writes to that deployed table with the default AWS credentials.

const usage = `Usage:
  npm run platform-app -- create --name NAME                      (against the local runtime)
  npm run platform-app -- create --name NAME --table TABLE [--region REGION]   (against a deployed table)
Prints the new platform app's API token once; it cannot be shown again.`;

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      table: { type: 'string' },
      region: { type: 'string' },
      endpoint: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || positionals[0] !== 'create' || !values.name?.trim()) {
    process.stderr.write(`${usage}\n`);
    process.exit(values.help ? 0 : 2);
  }
  if (values.table) {
    process.env.TABLE_NAME = values.table;
    if (values.region) process.env.AWS_REGION = values.region;
    if (values.endpoint) process.env.DYNAMODB_ENDPOINT = values.endpoint;
  } else {
    const port = process.env.DYNAMODB_PORT ?? String(LOCAL_DEFAULTS.dynamodbPort);
    Object.assign(process.env, {
      TABLE_NAME: LOCAL_DEFAULTS.tableName,
      AWS_REGION: LOCAL_DEFAULTS.region,
      DYNAMODB_ENDPOINT: values.endpoint ?? `http://127.0.0.1:${port}`,
      AWS_ACCESS_KEY_ID: LOCAL_DEFAULTS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: 'local',
    });
  }
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const { createPlatformApp } = await import('#shared/domain/platform/service.ts');
  const app = await createPlatformApp(values.name.trim());
  process.stdout.write(`Platform app ${app.id} "${app.name}" created.\nAPI token (shown once): ${app.token}\n`);
}

main().catch((err) => {
  const hint = (err as Error).name === 'ResourceNotFoundException' ? ' (is the table name right, and is `npm start` running?)' : '';
  process.stderr.write(`Could not create the platform app: ${(err as Error).message}${hint}\n`);
  process.exit(1);
});
