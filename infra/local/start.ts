import { JAVA_INSTALL_HINT, javaAvailable } from './dynamodb-local.ts';
import { LOCAL_DEFAULTS, startRuntime } from './runtime.ts';

// `npm start`: PORT (3000), HOST (127.0.0.1), PLATFORM_API_TOKEN (generated when absent),
// DATA_DIR (keep data on disk), DYNAMODB_PORT (8000), BODY_TIMEOUT_MS (10000).

// The last line of defence: a bug that lets an error escape a request must not take every other
// tenant's requests down with it. It is logged loudly; the request paths themselves answer 4xx/5xx.
process.on('uncaughtException', (err) => {
  process.stderr.write(`local runtime: uncaught exception, still serving: ${err.stack ?? String(err)}\n`);
});
process.on('unhandledRejection', (reason) => {
  process.stderr.write(`local runtime: unhandled rejection, still serving: ${(reason as Error)?.stack ?? String(reason)}\n`);
});

// Room for the graceful part: requests in flight (10 s), the stream forwarded (5 s), a last delivery batch (the
// 10 s webhook timeout) and saving the queues.
const STOP_GRACE_MS = 30_000;

async function main() {
  if (!javaAvailable()) {
    process.stderr.write(`${JAVA_INSTALL_HINT}\n`);
    process.exit(1);
  }
  const env = process.env;
  const starting = startRuntime({
    port: env.PORT ? Number(env.PORT) : 3000,
    host: env.HOST || '127.0.0.1',
    dataDir: env.DATA_DIR || undefined,
    platformToken: env.PLATFORM_API_TOKEN || undefined,
    dynamodbPort: env.DYNAMODB_PORT ? Number(env.DYNAMODB_PORT) : LOCAL_DEFAULTS.dynamodbPort,
    logLevel: env.LOG_LEVEL || 'INFO',
    bodyTimeoutMs: env.BODY_TIMEOUT_MS ? Number(env.BODY_TIMEOUT_MS) : undefined,
  });
  // Signals are handled from the first moment, so a stop that arrives while Java is still starting
  // waits for it and stops it too, and a stop is a clean exit (0) even when one part fails to stop.
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: stopping\n`);
    // A part that never finishes stopping (a poller stuck on storage that already died) must not keep the
    // process alive past its stop: after STOP_GRACE_MS it exits anyway.
    const grace = new Promise<void>((r) => setTimeout(r, STOP_GRACE_MS).unref());
    try {
      await Promise.race([(async () => (await starting).stop())(), grace]);
    } catch (err) {
      process.stderr.write(`local runtime: while stopping: ${(err as Error).stack ?? String(err)}\n`);
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  const runtime = await starting;
  process.stdout.write(
    [
      `Service ready at ${runtime.baseUrl}`,
      `Platform API token: ${runtime.platformToken}`,
      `DynamoDB Local: ${runtime.dynamodbEndpoint} (table ${runtime.tableName}); SQS/S3 emulator: ${runtime.awsEndpoint}`,
      `Web widget demo: ${runtime.baseUrl}/widget/demo?website_token=<a web widget inbox's website_token>`,
      `Replay stream records that failed: npm run replay -- stream-failures --queue-url ${runtime.queueUrls.streamFailures} --events-queue-url ${runtime.queueUrls.events} --sqs-endpoint ${runtime.awsEndpoint} --dynamodb-endpoint ${runtime.dynamodbEndpoint}`,
      `Replay dead-lettered deliveries: npm run replay -- deliveries --queue-url ${runtime.queueUrls.deliveriesDlq} --deliveries-queue-url ${runtime.queueUrls.deliveries} --sqs-endpoint ${runtime.awsEndpoint} --dynamodb-endpoint ${runtime.dynamodbEndpoint} [--since TIME]`,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`Could not start: ${(err as Error).message}\n`);
  process.exit(1);
});
