import { parseArgs } from 'node:util';
import { LOCAL_DEFAULTS } from '../infra/local/runtime.ts';

// npm run replay -- <source> --queue-url URL [--events-queue-url URL | --deliveries-queue-url URL] [--region R]
//   [--sqs-endpoint URL] [--dynamodb-endpoint URL] [--limit N] [--since TIME] [--account ID] [--webhook ID]
// Reads a failure queue and re-dispatches every entry; entries that fail again stay in the queue.
// `npm start` prints the command for the local runtime; a deployed stack has it as an output.

const usage = `Usage:
  npm run replay -- stream-failures --queue-url URL --events-queue-url URL [--region REGION]
  npm run replay -- deliveries --queue-url DELIVERIES_DLQ_URL --deliveries-queue-url URL [--region REGION]
      [--account ID] [--webhook ID]   (only that account's deliveries, only that webhook's)
  Either:
      [--sqs-endpoint URL --dynamodb-endpoint URL]   (emulated AWS: the local runtime)
      [--since TIME]   (only entries that reached the queue at or after TIME: ISO 8601, or epoch ms)
      [--limit N]
Sources:`;

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      'queue-url': { type: 'string' },
      'events-queue-url': { type: 'string' },
      'deliveries-queue-url': { type: 'string' },
      since: { type: 'string' },
      account: { type: 'string' },
      webhook: { type: 'string' },
      region: { type: 'string' },
      'sqs-endpoint': { type: 'string' },
      'dynamodb-endpoint': { type: 'string' },
      limit: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const { REPLAY_SOURCES, replayQueue } = await import('#shared/events/replay.ts');
  const name = positionals[0] as keyof typeof REPLAY_SOURCES | undefined;
  const source = name ? REPLAY_SOURCES[name] : undefined;
  if (values.help || !source || !values['queue-url']) {
    const list = Object.entries(REPLAY_SOURCES)
      .map(([k, s]) => `  ${k}: ${s.description}`)
      .join('\n');
    process.stderr.write(`${usage}\n${list}\n`);
    process.exit(values.help ? 0 : 2);
  }
  const emulated = !!values['sqs-endpoint'];
  Object.assign(process.env, {
    // The table is not read by a replay of stream records; the configuration wants a name all the same.
    TABLE_NAME: process.env.TABLE_NAME ?? LOCAL_DEFAULTS.tableName,
    AWS_REGION: values.region ?? process.env.AWS_REGION ?? LOCAL_DEFAULTS.region,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...(values['events-queue-url'] ? { EVENTS_QUEUE_URL: values['events-queue-url'] } : {}),
    ...(values['deliveries-queue-url'] ? { DELIVERIES_QUEUE_URL: values['deliveries-queue-url'] } : {}),
    // The local emulator serves S3 (the stream's failure bucket) on the same endpoint as SQS.
    ...(emulated ? { SQS_ENDPOINT: values['sqs-endpoint'], S3_ENDPOINT: values['sqs-endpoint'] } : {}),
    ...(values['dynamodb-endpoint'] ? { DYNAMODB_ENDPOINT: values['dynamodb-endpoint'] } : {}),
  });
  if (emulated) {
    process.env.AWS_ACCESS_KEY_ID ??= LOCAL_DEFAULTS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  }
  const limit = values.limit ? Number(values.limit) : undefined;
  let since: number | undefined;
  if (values.since) {
    since = /^\d+$/.test(values.since) ? Number(values.since) : Date.parse(values.since);
    if (!Number.isFinite(since)) {
      process.stderr.write(`--since: not a time: ${values.since}\n`);
      process.exit(2);
    }
  }
  const account = values.account ? Number(values.account) : undefined;
  const webhook = values.webhook ? Number(values.webhook) : undefined;
  const accept =
    account !== undefined || webhook !== undefined
      ? (body: string) => {
          const d = JSON.parse(body) as { account_id?: number; target?: { kind?: string; id?: number } };
          return (
            (account === undefined || d.account_id === account) &&
            (webhook === undefined || (d.target?.kind === 'webhook' && d.target.id === webhook))
          );
        }
      : undefined;
  const result = await replayQueue(values['queue-url']!, source, { limit, since, accept });
  process.stdout.write(
    `${name}: ${result.replayed} replayed, ${result.failed.length} still failing, ${result.skipped} left in the queue\n`,
  );
  for (const f of result.failed) process.stdout.write(`  ${f.messageId}: ${f.error}\n`);
  process.exit(result.failed.length ? 1 : 0);
}

main().catch((err) => {
  process.stderr.write(`Replay failed: ${(err as Error).message}\n`);
  process.exit(1);
});
