import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { CreateQueueCommand, GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { routes } from '../routes.ts';
import { consumerTimeoutSeconds, EVENT_FUNCTION_NAMES, EVENT_HANDLERS, QUEUE_SOURCES, QUEUES, STREAM_SOURCE } from '../pipeline.ts';
import { createTableInput } from '#shared/db/table.ts';
import { resetConfig } from '#shared/config.ts';
import { failureNoticeBody, streamFailureKey, streamFailureObject } from '#shared/events/stream-failures.ts';
import { log } from '#shared/log.ts';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local.ts';
import { closeGracefully, createHttpServer } from './http-server.ts';
import { restoreQueues, saveQueues, type InspectableQueues, type SavedObject } from './queue-state.ts';
import { attachCableServer } from './cable-server.ts';
import { startSmtpListener } from './smtp-listener.ts';
import { useLocalSockets } from '#shared/realtime/senders.ts';
import { pollQueue, pollStream, type Poller } from './pollers.ts';
import { asFunction, startRecording, type Recording } from './recorder.ts';
import { observed } from '#shared/aws/observe.ts';

// `npm start` and the e2e tests: the whole service in one process, each AWS piece stood in for by a
// local one, the handler modules unchanged.

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const LOCAL_DEFAULTS = {
  region: 'us-east-1',
  accessKeyId: 'local',
  tableName: 'chatwoot-local',
  dynamodbPort: 8000,
};

/** How long a stop waits for requests being answered. */
const REQUEST_GRACE_MS = 10_000;
/** How long a stop waits for the stream poller to forward what was written before it. */
const STREAM_DRAIN_MS = 5_000;

export interface RuntimeOptions {
  port?: number;
  host?: string;
  /** Keep DynamoDB data on disk here; in memory when absent. */
  dataDir?: string;
  platformToken?: string;
  /** Use a running DynamoDB Local instead of starting one. */
  dynamodbEndpoint?: string;
  dynamodbPort?: number;
  /** Use a running SQS/S3 emulator instead of starting one. */
  awsEndpoint?: string;
  /** DynamoDB Local keeps one database per access key id: tests give each worker its own. */
  accessKeyId?: string;
  /** Prefix of queue and bucket names, for runtimes that share one emulator. */
  namePrefix?: string;
  logLevel?: string;
  /** How long a request may take to send its body (see DEFAULT_BODY_TIMEOUT_MS). */
  bodyTimeoutMs?: number;
  /** Record each function's AWS calls and environment reads (recorder.ts); default: RECORD_AWS_CALLS=1. */
  recordAwsCalls?: boolean;
  /** The SMTP listener's port (incoming mail, docs/mail.md#ways-in); default INBOUND_SMTP_PORT (2525), 0 picks a free one. */
  inboundSmtpPort?: number;
  /** Poll the IMAP inboxes every IMAP_POLL_SECONDS; default true (tests poll when they choose). */
  imapPolling?: boolean;
}

export interface Runtime {
  baseUrl: string;
  platformToken: string;
  platformAppId: number;
  dynamodbEndpoint: string;
  awsEndpoint: string;
  tableName: string;
  queueUrls: {
    events: string;
    deliveries: string;
    eventsDlq: string;
    deliveriesDlq: string;
    streamFailures: string;
    mail: string;
    mailDlq: string;
    channelInbound: string;
    channelInboundDlq: string;
    channelSend: string;
    channelSendDlq: string;
  };
  /**
   * The event pipeline's pollers. Paused, writes still reach the stream but nothing consumes it; resumed,
   * the stream is read from its tip (the bench measures endpoints without the pipeline's own traffic).
   */
  pipeline: { pause(): Promise<void>; resume(): Promise<void> };
  /** Each function's AWS calls and environment reads, when recording (see RuntimeOptions.recordAwsCalls). */
  recording?: Recording;
  /** The port of the SMTP listener that takes incoming mail on the runtime's host (0: not listening, its port was taken). */
  inboundSmtpPort: number;
  /** One IMAP poll of every inbox with IMAP on, as the schedule runs it. */
  pollImap(): Promise<{ polled: number; imported: number; failed: number }>;
  stop(): Promise<void>;
}

export function tokenKeyFile(dataDir: string): string {
  const file = join(dataDir, 'token.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600 });
  }
  return file;
}

/**
 * A table kept from an earlier `npm start` gets the indexes added since (one at a time, as DynamoDB allows) and
 * loses those removed since; `npm run backfill` then gives its older items their keys.
 */
async function addMissingIndexes(client: DynamoDBClient, tableName: string, present: string[]) {
  const wanted = createTableInput(tableName);
  for (const index of wanted.GlobalSecondaryIndexes) {
    if (present.includes(index.IndexName)) continue;
    const attributes = new Set<string>(index.KeySchema.map((k) => k.AttributeName));
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: wanted.AttributeDefinitions.filter((a) => attributes.has(a.AttributeName)),
        GlobalSecondaryIndexUpdates: [{ Create: index }],
      }),
    );
    log.info('index added to the local table; run npm run backfill for items written before it', { index: index.IndexName });
  }
  // An index the table no longer has (the slim gsi3 that gsi3w replaced) would only cost writes.
  const names = new Set<string>(wanted.GlobalSecondaryIndexes.map((i) => i.IndexName));
  for (const name of present.filter((n) => !names.has(n))) {
    await client.send(new UpdateTableCommand({ TableName: tableName, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: name } }] }));
    log.info('index removed from the local table', { index: name });
  }
}

async function ensureTable(client: DynamoDBClient, tableName: string): Promise<{ streamArn: string; existed: boolean }> {
  try {
    const d = await client.send(new DescribeTableCommand({ TableName: tableName }));
    await addMissingIndexes(
      client,
      tableName,
      (d.Table!.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName!),
    );
    return { streamArn: d.Table!.LatestStreamArn!, existed: true };
  } catch (err) {
    if (!(err instanceof ResourceNotFoundException)) throw err;
  }
  try {
    const out = await client.send(new CreateTableCommand(createTableInput(tableName)));
    return { streamArn: out.TableDescription!.LatestStreamArn!, existed: false };
  } catch (err) {
    // Created meanwhile by a sibling (parallel test workers share nothing, but be safe).
    const d = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (!d.Table?.LatestStreamArn) throw err;
    return { streamArn: d.Table.LatestStreamArn, existed: true };
  }
}

async function ensureQueue(client: SQSClient, name: string, fifo: boolean, attributes: Record<string, string> = {}) {
  const out = await client.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: { ...(fifo ? { FifoQueue: 'true' } : {}), ...attributes },
    }),
  );
  const url = out.QueueUrl!;
  const attrs = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  return { url, arn: attrs.Attributes!.QueueArn! };
}

export async function startRuntime(opts: RuntimeOptions = {}): Promise<Runtime> {
  const stops: (() => Promise<void>)[] = [];
  // Readiness (see HttpServerOptions.isReady): true once everything below has started, false again as soon as
  // stopping begins.
  let ready = false;
  const stopAll = async () => {
    ready = false;
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  try {
    const recording = (opts.recordAwsCalls ?? process.env.RECORD_AWS_CALLS === '1') ? startRecording() : undefined;
    const region = LOCAL_DEFAULTS.region;
    const accessKeyId = opts.accessKeyId ?? LOCAL_DEFAULTS.accessKeyId;
    const prefix = opts.namePrefix ?? '';
    const tableName = `${prefix}${LOCAL_DEFAULTS.tableName}`;

    let dynamodbEndpoint = opts.dynamodbEndpoint;
    if (!dynamodbEndpoint) {
      const ddb: DynamoDbLocal = await startDynamoDbLocal({
        port: opts.dynamodbPort,
        dataDir: opts.dataDir ? join(opts.dataDir, 'dynamodb') : undefined,
      });
      stops.push(() => ddb.stop());
      dynamodbEndpoint = ddb.endpoint;
    }

    let awsEndpoint = opts.awsEndpoint;
    // The emulator this runtime started, whose queues it saves across a restart with a data folder.
    let emulator: InspectableQueues | undefined;
    if (!awsEndpoint) {
      const { startFauxqs } = await import('fauxqs');
      const faux = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false } as never);
      emulator = faux as unknown as InspectableQueues;
      stops.push(() => faux.stop());
      awsEndpoint = faux.address.replace('localhost', '127.0.0.1');
    }

    const credentials = { accessKeyId, secretAccessKey: 'local' };
    Object.assign(process.env, {
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    });

    const ddbClient = new DynamoDBClient({ region, endpoint: dynamodbEndpoint, credentials });
    const { streamArn, existed } = await ensureTable(ddbClient, tableName);

    // Observed: the pollers stand in for Lambda's event source mappings, whose calls need the function's role.
    const sqsClient = observed(new SQSClient({ region, endpoint: awsEndpoint, credentials }));
    const q = async (def: (typeof QUEUES)[keyof typeof QUEUES]) => {
      const dlq = await ensureQueue(sqsClient, `${prefix}${def.dlq}`, def.fifo);
      const main = await ensureQueue(sqsClient, `${prefix}${def.name}`, def.fifo, {
        VisibilityTimeout: String(def.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: def.maxReceiveCount }),
      });
      return { main, dlq };
    };
    const events = await q(QUEUES.events);
    const deliveries = await q(QUEUES.deliveries);
    const mail = await q(QUEUES.mail);
    const channelInbound = await q(QUEUES.channelInbound);
    const channelSend = await q(QUEUES.channelSend);
    const streamFailures = await ensureQueue(sqsClient, `${prefix}${STREAM_SOURCE.failureDestination.queue}`, false);
    const bucket = `${prefix}avatars`.toLowerCase();
    const failureBucket = `${prefix}${STREAM_SOURCE.failureDestination.bucket}`.toLowerCase();
    const s3 = new S3Client({ region, endpoint: awsEndpoint, credentials, forcePathStyle: true });
    for (const name of [bucket, failureBucket]) await s3.send(new CreateBucketCommand({ Bucket: name })).catch(() => undefined);

    const server: Server = createHttpServer(ROOT, routes, { bodyTimeoutMs: opts.bodyTimeoutMs, isReady: () => ready });
    const host = opts.host ?? '127.0.0.1';
    await new Promise<void>((res, rej) => {
      server.once('error', rej);
      server.listen(opts.port ?? 0, host, () => res());
    });
    // Requests already being answered finish before anything behind them stops (see stopPipeline).
    let serverClosed: Promise<void> | undefined;
    const closeServer = () => (serverClosed ??= closeGracefully(server, REQUEST_GRACE_MS));
    stops.push(closeServer);
    // `/cable` on the same port; the pipeline's broadcast stage sends through these sockets.
    const cable = attachCableServer(server);
    useLocalSockets(cable.sender);
    let cableClosed: Promise<void> | undefined;
    const closeCable = () =>
      (cableClosed ??= (async () => {
        useLocalSockets(undefined);
        await cable.close();
      })());
    stops.push(closeCable);
    const port = (server.address() as { port: number }).port;
    const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

    delete process.env.TOKEN_KEY;
    delete process.env.TOKEN_KEY_FILE;
    Object.assign(process.env, {
      TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: dynamodbEndpoint,
      SQS_ENDPOINT: awsEndpoint,
      S3_ENDPOINT: awsEndpoint,
      EVENTS_QUEUE_URL: events.main.url,
      DELIVERIES_QUEUE_URL: deliveries.main.url,
      DELIVERIES_DLQ_URL: deliveries.dlq.url,
      MAIL_QUEUE_URL: mail.main.url,
      CHANNEL_INBOUND_QUEUE_URL: channelInbound.main.url,
      CHANNEL_SEND_QUEUE_URL: channelSend.main.url,
      // A send that met a provider 5xx is tried again within seconds locally (30 s deployed).
      CHANNEL_SEND_RETRY_BASE_SECONDS: process.env.CHANNEL_SEND_RETRY_BASE_SECONDS ?? '2',
      // Without SMTP_ADDRESS/SMTP_PORT, mail goes to <DATA_DIR>/mail (or the log when in memory).
      ...(opts.dataDir && !process.env.MAIL_DIR ? { MAIL_DIR: join(opts.dataDir, 'mail') } : {}),
      AVATAR_BUCKET: bucket,
      PUBLIC_BASE_URL: baseUrl,
      // With a data folder the key file is read (not copied), so that `npm run rotate-key` reaches us.
      ...(opts.dataDir ? { TOKEN_KEY_FILE: tokenKeyFile(opts.dataDir) } : { TOKEN_KEY: randomBytes(32).toString('base64') }),
      // Locally the key file is cheap to read again: a rotation reaches the server within seconds.
      KEYRING_TTL_SECONDS: process.env.KEYRING_TTL_SECONDS ?? '5',
      // Local receivers (127.0.0.1, localhost) are reachable; the developer's network and the cloud metadata
      // address are not, unless they opt in with ALLOW_PRIVATE_WEBHOOK_TARGETS=true: any account's webhook,
      // bot or API inbox URL names the target.
      ALLOW_LOOPBACK_WEBHOOK_TARGETS: 'true',
      // The ActionMailbox relay route's password (user `actionmailbox`): given, or one made for this run (printed).
      RAILS_INBOUND_EMAIL_PASSWORD: process.env.RAILS_INBOUND_EMAIL_PASSWORD || randomBytes(12).toString('base64url'),
      LOG_LEVEL: opts.logLevel ?? process.env.LOG_LEVEL ?? 'WARN',
    });
    resetConfig();
    (await import('#shared/crypto/tokens.ts')).reloadKeyring();

    const { createPlatformApp } = await import('#shared/domain/platform/service.ts');
    const app = await createPlatformApp('local', opts.platformToken || undefined);

    const load = async (file: string) => (await import(join(ROOT, file))).handler;
    // With a data folder, what the queues held at the last stop is queued again before anything polls.
    const savedQueues = {
      [`${prefix}${QUEUES.events.name}`]: events.main.url,
      [`${prefix}${QUEUES.events.dlq}`]: events.dlq.url,
      [`${prefix}${QUEUES.deliveries.name}`]: deliveries.main.url,
      [`${prefix}${QUEUES.deliveries.dlq}`]: deliveries.dlq.url,
      [`${prefix}${QUEUES.channelInbound.name}`]: channelInbound.main.url,
      [`${prefix}${QUEUES.channelInbound.dlq}`]: channelInbound.dlq.url,
      [`${prefix}${QUEUES.channelSend.name}`]: channelSend.main.url,
      [`${prefix}${QUEUES.channelSend.dlq}`]: channelSend.dlq.url,
      [`${prefix}${STREAM_SOURCE.failureDestination.queue}`]: streamFailures.url,
    };
    const persistQueues = !!(opts.dataDir && emulator);
    if (persistQueues) {
      try {
        const restored = await restoreQueues(sqsClient, savedQueues, opts.dataDir!, async (o) => {
          await s3.send(new PutObjectCommand({ Bucket: o.bucket, Key: o.key, Body: o.body, ContentType: 'application/json' }));
        });
        if (restored) log.info('queued messages restored from the data folder', { messages: restored });
      } catch (err) {
        // A file that cannot be restored must not keep the service from starting: it is set aside, loudly.
        const aside = join(opts.dataDir!, `queues.unrestored-${Date.now()}.json`);
        if (existsSync(join(opts.dataDir!, 'queues.json'))) renameSync(join(opts.dataDir!, 'queues.json'), aside);
        process.stderr.write(`local runtime: could not queue the saved messages again (${(err as Error).message}); kept in ${aside}\n`);
      }
    }

    const handlers = {
      stream: await asFunction(EVENT_FUNCTION_NAMES.stream, () => load(EVENT_HANDLERS.stream)),
      dispatch: await asFunction(EVENT_FUNCTION_NAMES.dispatch, () => load(EVENT_HANDLERS.dispatch)),
      deliver: await asFunction(EVENT_FUNCTION_NAMES.deliver, () => load(EVENT_HANDLERS.deliver)),
      mail: await asFunction(EVENT_FUNCTION_NAMES.mail, () => load(EVENT_HANDLERS.mail)),
      channelInbound: await asFunction(EVENT_FUNCTION_NAMES.channelInbound, () => load(EVENT_HANDLERS.channelInbound)),
      channelSend: await asFunction(EVENT_FUNCTION_NAMES.channelSend, () => load(EVENT_HANDLERS.channelSend)),
      emailSes: await asFunction(EVENT_FUNCTION_NAMES.emailSes, () => load(EVENT_HANDLERS.emailSes)),
      imapPoll: await asFunction(EVENT_FUNCTION_NAMES.imapPoll, () => load(EVENT_HANDLERS.imapPoll)),
      slaWakeup: await asFunction(EVENT_FUNCTION_NAMES.slaWakeup, () => load(EVENT_HANDLERS.slaWakeup)),
    };
    // SLA deadlines: a timer per wake-up stands in for EventBridge Scheduler's one-time schedules (docs/sla.md).
    const wakeups = new Set<NodeJS.Timeout>();
    const { useLocalWakeups } = await import('#shared/queues/wakeups.ts');
    useLocalWakeups((w) => {
      const timer = setTimeout(
        () => {
          wakeups.delete(timer);
          void asFunction(EVENT_FUNCTION_NAMES.slaWakeup, () => handlers.slaWakeup(w)).catch((error: unknown) =>
            log.warn('SLA wake-up failed', { error: String(error) }),
          );
        },
        // Node's timers take at most 2^31 - 1 ms (~24.8 days); a later deadline wakes then and is scheduled again.
        Math.min(2 ** 31 - 1, Math.max(0, Math.ceil(w.at * 1000 - Date.now()))),
      );
      timer.unref();
      wakeups.add(timer);
    });
    stops.push(async () => {
      useLocalWakeups(undefined);
      for (const t of wakeups) clearTimeout(t);
    });
    // Incoming mail: the SMTP listener stands in for SES receiving (the same routing and queueing), and a timer for
    // the IMAP schedule.
    const { takeMail } = await import('#shared/channels/email/ingress.ts');
    const mailConfig = (await import('#shared/config.ts')).mailConfig().inboundMail;
    // A port another program holds (2525 is common) leaves the service without the listener, said at start.
    const smtpListener = await startSmtpListener({
      host,
      port: opts.inboundSmtpPort ?? mailConfig.smtpPort,
      maxBytes: mailConfig.maxBytes,
      // Recorded as SES receiving's ingest function, which it stands in for (the deploy proof checks its role).
      handOff: (raw, envelopeTo) => asFunction(EVENT_FUNCTION_NAMES.emailSes, async () => void (await takeMail(raw, { envelopeTo }))),
    }).catch((error) => {
      log.warn('incoming mail SMTP listener not started', { error: String(error) });
      return undefined;
    });
    if (smtpListener) stops.push(() => smtpListener.close());
    const pollImap = () =>
      asFunction(
        EVENT_FUNCTION_NAMES.imapPoll,
        () => handlers.imapPoll({}) as Promise<{ polled: number; imported: number; failed: number }>,
      );
    if (opts.imapPolling !== false) {
      const timer = setInterval(
        () => void pollImap().catch((error) => log.warn('imap poll failed', { error: String(error) })),
        mailConfig.imapPollSeconds * 1000,
      );
      timer.unref();
      stops.push(async () => clearInterval(timer));
    }
    const startPollers = (fromLatest: boolean): Poller[] => [
      asFunction(EVENT_FUNCTION_NAMES.stream, () =>
        pollStream({
          client: observed(new DynamoDBStreamsClient({ region, endpoint: dynamodbEndpoint, credentials })),
          streamArn,
          region,
          name: 'stream',
          handler: handlers.stream,
          fromLatest,
          settings: STREAM_SOURCE,
          // Lambda's S3 on-failure destination: the invocation record with its payload as an object, and
          // the bucket's notification of it on the failure queue.
          onFailure: async (records, info) => {
            log.error('stream records failed after retries, sent to the failure destination', {
              eventIds: records.map((r) => r.eventID),
              sequenceNumbers: records.map((r) => r.dynamodb?.SequenceNumber),
              attempts: info.attempts,
              error: info.error,
            });
            const key = streamFailureKey('local-stream', info.shardId);
            const body = JSON.stringify(streamFailureObject(records, { ...info, streamArn, functionArn: 'local:stream' }));
            await s3.send(new PutObjectCommand({ Bucket: failureBucket, Key: key, Body: body, ContentType: 'application/json' }));
            await sqsClient.send(
              new SendMessageCommand({
                QueueUrl: streamFailures.url,
                MessageBody: failureNoticeBody(failureBucket, encodeURIComponent(key).replace(/%2F/g, '/'), Buffer.byteLength(body)),
              }),
            );
          },
        }),
      ),
      asFunction(EVENT_FUNCTION_NAMES.dispatch, () =>
        pollQueue({
          client: sqsClient,
          queueUrl: events.main.url,
          queueArn: events.main.arn,
          region,
          name: 'dispatch',
          handler: handlers.dispatch,
          batchSize: QUEUE_SOURCES.dispatch.batchSize,
          timeoutMs: consumerTimeoutSeconds(QUEUES[QUEUE_SOURCES.dispatch.queue].visibilityTimeoutSeconds) * 1000,
        }),
      ),
      asFunction(EVENT_FUNCTION_NAMES.deliver, () =>
        pollQueue({
          client: sqsClient,
          queueUrl: deliveries.main.url,
          queueArn: deliveries.main.arn,
          region,
          name: 'deliver',
          handler: handlers.deliver,
          batchSize: QUEUE_SOURCES.deliver.batchSize,
          timeoutMs: consumerTimeoutSeconds(QUEUES[QUEUE_SOURCES.deliver.queue].visibilityTimeoutSeconds) * 1000,
          concurrency: 25,
        }),
      ),
      asFunction(EVENT_FUNCTION_NAMES.mail, () =>
        pollQueue({
          client: sqsClient,
          queueUrl: mail.main.url,
          queueArn: mail.main.arn,
          region,
          name: 'mail',
          handler: handlers.mail,
          batchSize: QUEUE_SOURCES.mail.batchSize,
          timeoutMs: consumerTimeoutSeconds(QUEUES[QUEUE_SOURCES.mail.queue].visibilityTimeoutSeconds) * 1000,
        }),
      ),
      ...(['channelInbound', 'channelSend'] as const).map((key) =>
        asFunction(EVENT_FUNCTION_NAMES[key], () =>
          pollQueue({
            client: sqsClient,
            queueUrl: (key === 'channelInbound' ? channelInbound : channelSend).main.url,
            queueArn: (key === 'channelInbound' ? channelInbound : channelSend).main.arn,
            region,
            name: EVENT_FUNCTION_NAMES[key],
            handler: handlers[key],
            batchSize: QUEUE_SOURCES[key].batchSize,
            timeoutMs: consumerTimeoutSeconds(QUEUES[QUEUE_SOURCES[key].queue].visibilityTimeoutSeconds) * 1000,
          }),
        ),
      ),
    ];
    let pollers: Poller[] = startPollers(existed);
    const pipeline = {
      async pause() {
        await Promise.all(pollers.map((p) => p.stop()));
        pollers = [];
      },
      async resume() {
        if (!pollers.length) pollers = startPollers(true);
      },
    };
    // Stopping: requests in flight finish (and no new ones start), the stream poller forwards everything
    // written until then, the pollers finish their batches, and (with a data folder) the queues are saved;
    // only then do the emulator and DynamoDB Local stop. On the next start the stream is read from its tip
    // (everything before it was forwarded) and the saved messages are queued again.
    stops.push(async () => {
      await closeCable();
      await closeServer();
      await pollers[0]?.drain?.(STREAM_DRAIN_MS);
      await pipeline.pause();
      if (persistQueues) {
        // The stream's failure objects live in the emulated bucket: saved with the entries that name them.
        const objects: SavedObject[] = [];
        let token: string | undefined;
        do {
          const page = await s3.send(new ListObjectsV2Command({ Bucket: failureBucket, ContinuationToken: token }));
          for (const o of page.Contents ?? []) {
            const got = await s3.send(new GetObjectCommand({ Bucket: failureBucket, Key: o.Key! }));
            objects.push({ bucket: failureBucket, key: o.Key!, body: await got.Body!.transformToString('utf8') });
          }
          token = page.NextContinuationToken;
        } while (token);
        const saved = saveQueues(emulator!, Object.keys(savedQueues), opts.dataDir!, objects);
        log.info('queued messages saved to the data folder', { messages: saved });
      }
    });

    ready = true;
    return {
      baseUrl,
      platformToken: app.token,
      platformAppId: app.id,
      dynamodbEndpoint,
      awsEndpoint,
      tableName,
      queueUrls: {
        events: events.main.url,
        deliveries: deliveries.main.url,
        eventsDlq: events.dlq.url,
        deliveriesDlq: deliveries.dlq.url,
        streamFailures: streamFailures.url,
        mail: mail.main.url,
        mailDlq: mail.dlq.url,
        channelInbound: channelInbound.main.url,
        channelInboundDlq: channelInbound.dlq.url,
        channelSend: channelSend.main.url,
        channelSendDlq: channelSend.dlq.url,
      },
      pipeline,
      recording,
      inboundSmtpPort: smtpListener?.port ?? 0,
      pollImap,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
