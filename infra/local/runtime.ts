import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { CreateQueueCommand, GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { routes } from '../routes.ts';
import { EVENT_FUNCTION_NAMES, EVENT_HANDLERS, QUEUE_SOURCES, QUEUES, STREAM_SOURCE } from '../pipeline.ts';
import { createTableInput } from '../../shared/db/table.ts';
import { resetConfig } from '../../shared/config.ts';
import { streamFailureBody } from '../../shared/events/stream-failures.ts';
import { log } from '../../shared/log.ts';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local.ts';
import { createHttpServer } from './http-server.ts';
import { attachCableServer } from './cable-server.ts';
import { useLocalSockets } from '../../shared/events/broadcast.ts';
import { pollQueue, pollStream, type Poller } from './pollers.ts';
import { asFunction, startRecording, type Recording } from './recorder.ts';
import { observed } from '../../shared/aws/observe.ts';

// `npm start` and the e2e tests: the whole service in one process, each AWS piece stood in for by a
// local one, the handler modules unchanged.

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const LOCAL_DEFAULTS = {
  region: 'us-east-1',
  accessKeyId: 'local',
  tableName: 'chatwoot-local',
  dynamodbPort: 8000,
};

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
}

export interface Runtime {
  baseUrl: string;
  platformToken: string;
  platformAppId: number;
  dynamodbEndpoint: string;
  awsEndpoint: string;
  tableName: string;
  queueUrls: { events: string; deliveries: string; eventsDlq: string; deliveriesDlq: string; streamFailures: string };
  /**
   * The event pipeline's pollers. Paused, writes still reach the stream but nothing consumes it; resumed,
   * the stream is read from its tip (the bench measures endpoints without the pipeline's own traffic).
   */
  pipeline: { pause(): Promise<void>; resume(): Promise<void> };
  /** Each function's AWS calls and environment reads, when recording (see RuntimeOptions.recordAwsCalls). */
  recording?: Recording;
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

async function ensureTable(client: DynamoDBClient, tableName: string): Promise<{ streamArn: string; existed: boolean }> {
  try {
    const d = await client.send(new DescribeTableCommand({ TableName: tableName }));
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
    if (!awsEndpoint) {
      const { startFauxqs } = await import('fauxqs');
      const faux = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false } as never);
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
    const streamFailures = await ensureQueue(sqsClient, `${prefix}${STREAM_SOURCE.failureQueue}`, false);
    const bucket = `${prefix}avatars`.toLowerCase();
    const s3 = new S3Client({ region, endpoint: awsEndpoint, credentials, forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: bucket })).catch(() => undefined);

    const server: Server = createHttpServer(ROOT, routes, { bodyTimeoutMs: opts.bodyTimeoutMs, isReady: () => ready });
    const host = opts.host ?? '127.0.0.1';
    await new Promise<void>((res, rej) => {
      server.once('error', rej);
      server.listen(opts.port ?? 0, host, () => res());
    });
    stops.push(
      () =>
        new Promise<void>((res) => {
          server.close(() => res());
          server.closeAllConnections();
        }),
    );
    // `/cable` on the same port; the pipeline's broadcast stage sends through these sockets.
    const cable = attachCableServer(server);
    useLocalSockets(cable.sender);
    stops.push(async () => {
      useLocalSockets(undefined);
      await cable.close();
    });
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
      AVATAR_BUCKET: bucket,
      PUBLIC_BASE_URL: baseUrl,
      // With a data folder the key file is read (not copied), so that `npm run rotate-key` reaches us.
      ...(opts.dataDir ? { TOKEN_KEY_FILE: tokenKeyFile(opts.dataDir) } : { TOKEN_KEY: randomBytes(32).toString('base64') }),
      // Locally the key file is cheap to read again: a rotation reaches the server within seconds.
      KEYRING_TTL_SECONDS: process.env.KEYRING_TTL_SECONDS ?? '5',
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      LOG_LEVEL: opts.logLevel ?? process.env.LOG_LEVEL ?? 'WARN',
    });
    resetConfig();
    (await import('../../shared/crypto/tokens.ts')).reloadKeyring();

    const { createPlatformApp } = await import('../../shared/domain/platform/service.ts');
    const app = await createPlatformApp('local', opts.platformToken || undefined);

    const load = async (file: string) => (await import(join(ROOT, file))).handler;
    const handlers = {
      stream: await asFunction(EVENT_FUNCTION_NAMES.stream, () => load(EVENT_HANDLERS.stream)),
      dispatch: await asFunction(EVENT_FUNCTION_NAMES.dispatch, () => load(EVENT_HANDLERS.dispatch)),
      deliver: await asFunction(EVENT_FUNCTION_NAMES.deliver, () => load(EVENT_HANDLERS.deliver)),
    };
    const startPollers = (fromLatest: boolean): Poller[] => [
      asFunction(EVENT_FUNCTION_NAMES.stream, () => pollStream({
        client: observed(new DynamoDBStreamsClient({ region, endpoint: dynamodbEndpoint, credentials })),
        streamArn,
        region,
        name: 'stream',
        handler: handlers.stream,
        fromLatest,
        settings: STREAM_SOURCE,
        // Lambda's on-failure destination, with the records themselves added.
        onFailure: async (records, info) => {
          log.error('stream records failed after retries, sent to the failure destination', {
            eventIds: records.map((r) => r.eventID),
            sequenceNumbers: records.map((r) => r.dynamodb?.SequenceNumber),
            attempts: info.attempts,
            error: info.error,
          });
          await sqsClient.send(
            new SendMessageCommand({
              QueueUrl: streamFailures.url,
              MessageBody: streamFailureBody(records, { ...info, streamArn, functionArn: 'local:stream' }),
            }),
          );
        },
      })),
      asFunction(EVENT_FUNCTION_NAMES.dispatch, () =>
        pollQueue({ client: sqsClient, queueUrl: events.main.url, queueArn: events.main.arn, region, name: 'dispatch', handler: handlers.dispatch, batchSize: QUEUE_SOURCES.dispatch.batchSize }),
      ),
      asFunction(EVENT_FUNCTION_NAMES.deliver, () =>
        pollQueue({ client: sqsClient, queueUrl: deliveries.main.url, queueArn: deliveries.main.arn, region, name: 'deliver', handler: handlers.deliver, batchSize: QUEUE_SOURCES.deliver.batchSize, concurrency: 25 }),
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
    stops.push(() => pipeline.pause());

    ready = true;
    return {
      baseUrl,
      platformToken: app.token,
      platformAppId: app.id,
      dynamodbEndpoint,
      awsEndpoint,
      tableName,
      queueUrls: { events: events.main.url, deliveries: deliveries.main.url, eventsDlq: events.dlq.url, deliveriesDlq: deliveries.dlq.url, streamFailures: streamFailures.url },
      pipeline,
      recording,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
