import { Worker } from 'node:worker_threads';
import { JAVA_INSTALL_HINT, javaAvailable } from './dynamodb-local.ts';
import { LOCAL_DEFAULTS, startRuntime } from './runtime.ts';

// `npm start`: PORT (3000), HOST (127.0.0.1), PLATFORM_API_TOKEN (generated when absent),
// DATA_DIR (keep data on disk), DYNAMODB_PORT (8000), BODY_TIMEOUT_MS (10000).

// Output goes to whoever started us, who may be gone: a closed terminal, or a caller that signalled and
// exited, leaves stdout and stderr broken pipes whose every write fails with EPIPE. Such a stream is dropped
// for good. Without its 'error' listener the failure was an uncaught exception, whose report to the equally
// broken stderr failed again: a loop that kept the process at full CPU, past its stop deadline, for good.
const lost = new Set<NodeJS.WriteStream>();
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => lost.add(stream));
function say(stream: NodeJS.WriteStream, text: string): void {
  if (lost.has(stream) || stream.destroyed || !stream.writable) return;
  stream.write(text);
}

// The last line of defence: a bug that lets an error escape a request must not take every other
// tenant's requests down with it. It is logged loudly; the request paths themselves answer 4xx/5xx.
process.on('uncaughtException', (err) => {
  say(process.stderr, `local runtime: uncaught exception, still serving: ${err.stack ?? String(err)}\n`);
});
process.on('unhandledRejection', (reason) => {
  say(process.stderr, `local runtime: unhandled rejection, still serving: ${(reason as Error)?.stack ?? String(reason)}\n`);
});

// A stop always ends the process within STOP_EXIT_MS of its signal (20 s is the promise): the graceful part
// (requests in flight, the stream forwarded, the pipeline's batches, the queues saved, the emulator, then
// DynamoDB Local) gets STOP_GRACE_MS; whatever has not finished then is cut (Java is killed on exit).
const STOP_GRACE_MS = 14_000;
// If even that cannot run (this thread stuck), a watchdog thread kills the process at STOP_EXIT_MS; the
// end of its pipe then stops Java, which takes about a second.
const STOP_EXIT_MS = 17_000;
/** How often a process started by npm checks that npm is still its parent. */
const PARENT_CHECK_MS = 250;

function startWatchdog(ms: number): void {
  const worker = new Worker(`setTimeout(() => process.kill(process.pid, 'SIGKILL'), ${ms})`, { eval: true, execArgv: [] });
  worker.unref();
}

async function main() {
  if (!javaAvailable()) {
    say(process.stderr, `${JAVA_INSTALL_HINT}\n`);
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
  // A signal that comes again while stopping changes nothing (npm relays the terminal's Ctrl-C, so every
  // Ctrl-C arrives twice).
  let stopping = false;
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    startWatchdog(STOP_EXIT_MS);
    setTimeout(() => {
      say(process.stderr, `local runtime: not stopped after ${STOP_GRACE_MS / 1000} s, exiting anyway\n`);
      process.exit(0);
    }, STOP_GRACE_MS).unref();
    say(process.stdout, `${why}: stopping\n`);
    try {
      await (await starting).stop();
    } catch (err) {
      say(process.stderr, `local runtime: while stopping: ${(err as Error).stack ?? String(err)}\n`);
    }
    process.exit(0);
  };
  // SIGHUP: the terminal closed.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(signal));
  // Under npm, a stop of npm that reaches only npm's script shell (npm relays SIGINT and SIGTERM to it) or
  // a kill of npm itself leaves this process to its new parent: it notices and stops.
  if (process.env.npm_lifecycle_event) {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) void shutdown('parent gone');
    }, PARENT_CHECK_MS).unref();
  }
  const runtime = await starting;
  const channelBase = (process.env.FRONTEND_URL ?? runtime.baseUrl).replace(/\/$/, '');
  say(
    process.stdout,
    [
      `Service ready at ${runtime.baseUrl}`,
      `Platform API token: ${runtime.platformToken}`,
      `DynamoDB Local: ${runtime.dynamodbEndpoint} (table ${runtime.tableName}); SQS/S3 emulator: ${runtime.awsEndpoint}`,
      `Web widget demo: ${runtime.baseUrl}/widget/demo?website_token=<a web widget inbox's website_token>`,
      `Incoming mail: ${runtime.inboundSmtpPort ? `SMTP on ${env.HOST || '127.0.0.1'}:${runtime.inboundSmtpPort}` : 'no SMTP listener (its port is taken: set INBOUND_SMTP_PORT)'}; relay ${runtime.baseUrl}/rails/action_mailbox/relay/inbound_emails (user actionmailbox, password ${process.env.RAILS_INBOUND_EMAIL_PASSWORD})`,
      // docs/channels.md: where providers call (FRONTEND_URL when set); provider hosts from WHATSAPP_CLOUD_BASE_URL etc.
      `Channel webhooks (docs/channels.md): WhatsApp ${channelBase}/webhooks/whatsapp/<phone_number, e.g. +15550001111> (verify token: the inbox's provider_config.webhook_verify_token); Twilio ${channelBase}/twilio/callback and ${channelBase}/twilio/delivery_status; Bandwidth ${channelBase}/webhooks/sms/<phone_number without +>`,
      `Replay stream records that failed: npm run replay -- stream-failures --queue-url ${runtime.queueUrls.streamFailures} --events-queue-url ${runtime.queueUrls.events} --sqs-endpoint ${runtime.awsEndpoint} --dynamodb-endpoint ${runtime.dynamodbEndpoint}`,
      `Replay dead-lettered deliveries: npm run replay -- deliveries --queue-url ${runtime.queueUrls.deliveriesDlq} --deliveries-queue-url ${runtime.queueUrls.deliveries} --sqs-endpoint ${runtime.awsEndpoint} --dynamodb-endpoint ${runtime.dynamodbEndpoint} [--since TIME]`,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  say(process.stderr, `Could not start: ${(err as Error).message}\n`);
  process.exit(1);
});
