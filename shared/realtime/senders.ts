import type { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { observed } from '#shared/aws/observe.ts';
import { config, pipelineConfig } from '#shared/config.ts';
import * as repo from '#shared/db/repositories/cable.ts';
import { log } from '#shared/log.ts';
import type { CableSubscription } from '#shared/model/cable.ts';
import { sqs } from '#shared/queues/client.ts';
import type { Frame, Sender } from './protocol.ts';
import { taskQueueSender } from './task-queues.ts';

// How frames reach sockets. One interface, three transports: deployed, the Fargate socket server's task
// queues (CABLE_QUEUE_PREFIX set, the default) or API Gateway's PostToConnection (CABLE_ENDPOINT set); under
// `npm start`, the local server's own sockets, which it registers here.

let localSockets: Sender | undefined;

/** The local runtime hands over its sockets (or takes them back with undefined). */
export function useLocalSockets(sender: Sender | undefined): void {
  localSockets = sender;
}

const isGone = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'GoneException' || e?.$metadata?.httpStatusCode === 410;
};

// The management API's client loads with the first frame (a dynamic import): only the 'websocket-api' transport
// uses it, and the dispatcher, which broadcasts, would carry it at every cold start otherwise.
const managementApi = () => import('@aws-sdk/client-apigatewaymanagementapi');

/** PostToConnection (and DeleteConnection) through the WebSocket API's management endpoint; a 410 (GoneException) means gone. */
export function apiGatewaySender(connect: () => Promise<Pick<ApiGatewayManagementApiClient, 'send'>>): Sender {
  return {
    async send(connectionId, frame) {
      const [{ PostToConnectionCommand }, c] = await Promise.all([managementApi(), connect()]);
      try {
        await c.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from(JSON.stringify(frame)) }));
        return true;
      } catch (err) {
        if (isGone(err)) return false;
        throw err;
      }
    },
    async close(connectionId) {
      const [{ DeleteConnectionCommand }, c] = await Promise.all([managementApi(), connect()]);
      try {
        await c.send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
      } catch (err) {
        if (!isGone(err)) throw err;
      }
    },
  };
}

let deployed: { endpoint: string; sender: Sender } | undefined;

/** The transport the configuration names, or none (nothing listens: no sockets to serve). */
export function cableSender(): Sender | undefined {
  const prefix = pipelineConfig().cableQueuePrefix;
  if (prefix) {
    const key = `queues:${prefix}`;
    if (deployed?.endpoint !== key) deployed = { endpoint: key, sender: taskQueueSender(sqs(), prefix) };
    return deployed.sender;
  }
  const endpoint = pipelineConfig().cableEndpoint;
  if (!endpoint) return localSockets;
  if (deployed?.endpoint !== endpoint) {
    let client: Promise<ApiGatewayManagementApiClient> | undefined;
    const connect = () =>
      (client ??= managementApi().then(({ ApiGatewayManagementApiClient }) =>
        observed(new ApiGatewayManagementApiClient({ region: config().region, endpoint })),
      ));
    deployed = { endpoint, sender: apiGatewaySender(connect) };
  }
  return deployed.sender;
}

/**
 * Sends frames, each connection's in the given order and connections side by side; connections that are
 * gone are removed with their subscriptions.
 */
export async function deliver(sender: Sender, out: { sub: CableSubscription; frame: Frame }[]): Promise<number> {
  const byConnection = new Map<string, { subs: CableSubscription[]; frames: Frame[] }>();
  for (const { sub, frame } of out) {
    const c = byConnection.get(sub.connection_id) ?? { subs: [], frames: [] };
    if (!c.subs.includes(sub)) c.subs.push(sub);
    c.frames.push(frame);
    byConnection.set(sub.connection_id, c);
  }
  const remove = async (connectionId: string) => {
    await repo.deleteConnection(connectionId, byConnection.get(connectionId)!.subs);
    log.info('cable connection gone', { connectionId });
  };
  if (sender.sendBatch) {
    const gone = await sender.sendBatch([...byConnection].map(([connectionId, c]) => ({ connectionId, frames: c.frames })));
    for (const connectionId of gone) await remove(connectionId);
    return [...byConnection].filter(([id]) => !gone.has(id)).reduce((n, [, c]) => n + c.frames.length, 0);
  }
  let sent = 0;
  await Promise.all(
    [...byConnection].map(async ([connectionId, c]) => {
      for (const frame of c.frames) {
        if (!(await sender.send(connectionId, frame))) return remove(connectionId);
        sent++;
      }
    }),
  );
  return sent;
}
