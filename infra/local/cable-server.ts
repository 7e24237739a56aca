import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket } from 'ws';
import { closeConnection, handleFrame, openConnection, type Sender } from '../../shared/realtime/cable.ts';
import { frames, pickSubprotocol, PING_INTERVAL_MS } from '../../shared/realtime/protocol.ts';

// The local stand-in for the WebSocket API: `/cable` on the HTTP server's own port. The same RoomChannel
// code as the deployed $connect / $disconnect / $default functions; here the server itself greets and
// pings, which the deployed pinger does there.

/** API Gateway closes a connection whose message exceeds 128 KB (1009); so does this server. */
const MAX_MESSAGE_BYTES = 128 * 1024;

/** Local connections are not cut after 2 hours, so their records live long. */
const LOCAL_LIFETIME_MS = 30 * 24 * 3600_000;

export interface CableServer {
  sender: Sender;
  /** Open sockets right now. */
  size(): number;
  close(): Promise<void>;
}

export interface CableServerOptions {
  path?: string;
  pingIntervalMs?: number;
  /** Prepended to every connection id (the Fargate task's `<taskId>.`, which names the queue its frames go to). */
  idPrefix?: string;
}

export function attachCableServer(server: Server, opts: CableServerOptions = {}): CableServer {
  const path = opts.path ?? '/cable';
  const sockets = new Map<string, WebSocket>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    // Clients that offer no sub-protocol (the Flutter SDK) are served too.
    handleProtocols: (offered) => pickSubprotocol([...offered]) ?? false,
  });

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.replace(/\/$/, '') !== path) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  };
  server.on('upgrade', onUpgrade);

  // Each connection's work still to do (its frames, then its removal once closed): closing the server
  // waits for it, so nothing of a connection reaches the table after the runtime stopped it.
  const work = new Map<string, Promise<unknown>>();

  wss.on('connection', (ws: WebSocket) => {
    const id = `${opts.idPrefix ?? ''}${randomBytes(12).toString('base64url')}`;
    // One connection's frames are handled one after another, in the order they came.
    let chain: Promise<unknown> = openConnection(id, { welcomed: true, lifetimeMs: LOCAL_LIFETIME_MS }).then(() => {
      sockets.set(id, ws);
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frames.welcome()));
    });
    const queue = (next: () => Promise<unknown>) => {
      const mine = (chain = chain.then(next).catch((err) => process.stderr.write(`local runtime: cable: ${(err as Error).stack ?? String(err)}\n`)));
      work.set(id, mine);
      void mine.then(() => work.get(id) === mine && work.delete(id));
    };
    work.set(id, chain);
    ws.on('message', (data, isBinary) => {
      const raw = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
      if (isBinary) return;
      queue(() => handleFrame(id, raw, sender));
    });
    ws.on('error', () => undefined);
    ws.on('close', () => {
      sockets.delete(id);
      queue(() => closeConnection(id));
    });
  });

  const sender: Sender = {
    async send(connectionId, frame) {
      const ws = sockets.get(connectionId);
      if (!ws || ws.readyState !== WebSocket.OPEN) return false;
      await new Promise<void>((resolve) => ws.send(JSON.stringify(frame), () => resolve()));
      return true;
    },
  };

  const pinger = setInterval(() => {
    const ping = JSON.stringify(frames.ping());
    for (const ws of sockets.values()) if (ws.readyState === WebSocket.OPEN) ws.send(ping);
  }, opts.pingIntervalMs ?? PING_INTERVAL_MS);
  pinger.unref();

  return {
    sender,
    size: () => sockets.size,
    async close() {
      clearInterval(pinger);
      server.off('upgrade', onUpgrade);
      // Each client's own 'close' listener (above) queues its removal before these resolve.
      const closed = [...wss.clients].map((ws) => new Promise<void>((resolve) => (ws.readyState === WebSocket.CLOSED ? resolve() : ws.once('close', () => resolve()))));
      for (const ws of wss.clients) ws.terminate();
      await Promise.all(closed);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await Promise.all(work.values());
    },
  };
}
