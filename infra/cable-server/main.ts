import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { pipelineConfig } from '#shared/config.ts';
import { sqs } from '#shared/queues/client.ts';
import { log } from '#shared/log.ts';
import { taskQueueName, type TaskMessage } from '#shared/realtime/task-queues.ts';
import { attachCableServer, type CableServer } from '../local/cable-server.ts';

// The Fargate socket server (the default deployed /cable): the local runtime's ActionCable server on its own
// port, behind a Network Load Balancer. Each task owns a queue, `<CABLE_QUEUE_PREFIX>cable-<taskId>`, created
// at start and deleted at SIGTERM; the dispatcher sends it the frames of this task's connections (named
// `<taskId>.<random>`), which it long-polls and hands to its sockets.

export interface CableTaskOptions {
  /** @default 8080 (PORT) */
  port?: number;
  /** @default 0.0.0.0 */
  host?: string;
  /** The queue name prefix the dispatcher shares. @default CABLE_QUEUE_PREFIX */
  queuePrefix?: string;
  /** @default random */
  taskId?: string;
  /** Long-poll wait. @default 20 s */
  waitSeconds?: number;
  client?: Pick<SQSClient, 'send'>;
}

export interface CableTask {
  taskId: string;
  port: number;
  queueUrl: string;
  cable: CableServer;
  /** Deletes the queue (new frames for this task now find no queue: its connections are gone), then closes. */
  stop(): Promise<void>;
}

/**
 * The client's address behind CloudFront and the load balancer: CloudFront appends the viewer's address to
 * X-Forwarded-For (what the client sent itself comes before it), so the last entry is the one to trust;
 * without the header, the TCP peer.
 */
export function viewerAddress(req: IncomingMessage): string | undefined {
  const header = req.headers['x-forwarded-for'];
  const last = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean)
    .at(-1);
  return last ?? req.socket.remoteAddress;
}

/** Messages older than this are worthless (sockets are live updates): the queue keeps them a minute, SQS's least. */
const RETENTION_SECONDS = 60;

export async function startCableTask(opts: CableTaskOptions = {}): Promise<CableTask> {
  const prefix = opts.queuePrefix ?? pipelineConfig().cableQueuePrefix;
  if (!prefix) throw new Error('CABLE_QUEUE_PREFIX is not set');
  const taskId = opts.taskId ?? randomBytes(8).toString('hex');
  const client = opts.client ?? sqs();
  const { QueueUrl } = await client.send(
    new CreateQueueCommand({
      QueueName: taskQueueName(prefix, taskId),
      Attributes: { MessageRetentionPeriod: String(RETENTION_SECONDS), ReceiveMessageWaitTimeSeconds: '20' },
      tags: { 'chatwoot:cable-task': taskId },
    }),
  );
  const queueUrl = QueueUrl!;

  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.split('?')[0] === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok', connections: cable.size() }));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Not Found' }));
  });
  const cable = attachCableServer(server, { idPrefix: `${taskId}.`, clientAddress: viewerAddress });
  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(opts.port ?? 8080, opts.host ?? '0.0.0.0', () => res());
  });
  const port = (server.address() as { port: number }).port;

  const abort = new AbortController();
  let stopping = false;
  const poll = (async () => {
    while (!stopping) {
      try {
        const out = await client.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: opts.waitSeconds ?? 20 }),
          { abortSignal: abort.signal },
        );
        const messages = out.Messages ?? [];
        for (const m of messages) {
          const body = JSON.parse(m.Body ?? '{}') as TaskMessage;
          for (const { c, f } of body.frames ?? []) for (const frame of f) if (!(await cable.sender.send(c, frame))) break;
        }
        if (messages.length) {
          await client.send(
            new DeleteMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
            }),
          );
        }
      } catch (error) {
        if (stopping) break;
        log.error('cable task: receive failed', { error });
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  })();

  let stopped: Promise<void> | undefined;
  return {
    taskId,
    port,
    queueUrl,
    cable,
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        await client
          .send(new DeleteQueueCommand({ QueueUrl: queueUrl }))
          .catch((error) => log.error('cable task: queue not deleted', { error }));
        abort.abort();
        await poll;
        await cable.close();
        await new Promise<void>((res) => server.close(() => res()));
      })()),
  };
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isMain) {
  const task = await startCableTask({ port: Number(process.env.PORT ?? 8080) });
  log.info('cable task started', { taskId: task.taskId, port: task.port });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      void task.stop().finally(() => process.exit(0));
    });
  }
}
