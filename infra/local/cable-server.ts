import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket } from 'ws';
import { admitSocket, closeConnection, handleFrame, openConnection, releaseSocket } from '#shared/realtime/connections.ts';
import type { Sender } from '#shared/realtime/protocol.ts';
import { frames, MAX_FRAMES_PER_MINUTE, pickSubprotocol, PING_INTERVAL_MS } from '#shared/realtime/protocol.ts';

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
  /** The client's address, whose open sockets are counted (default: the TCP peer's). */
  clientAddress?: (req: IncomingMessage) => string | undefined;
}

/** Closing code of a socket over its frame limit (RFC 6455 policy violation). */
export const FRAME_LIMIT_CLOSE_CODE = 1008;

export function attachCableServer(server: Server, opts: CableServerOptions = {}): CableServer {
  const path = opts.path ?? '/cable';
  const sockets = new Map<string, WebSocket>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    // Clients that offer no sub-protocol (the Flutter SDK) are served too.
    handleProtocols: (offered) => pickSubprotocol([...offered]) ?? false,
  });

  const addressOf = opts.clientAddress ?? ((req: IncomingMessage) => req.socket.remoteAddress);
  // Admission is asynchronous (a slot of the address's socket count, in the table): handshakes being
  // admitted are waited for on close.
  const admitting = new Set<Promise<unknown>>();
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.replace(/\/$/, '') !== path) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    const admission = admitSocket(addressOf(req)).then(
      (admitted) => {
        if (!admitted) {
          socket.end('HTTP/1.1 429 Too Many Requests\r\nRetry-After: 60\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
          return;
        }
        // A handshake that fails from here on (the client gone, bad headers) gives its slot back.
        let handedOver = false;
        const giveBack = () => {
          if (!handedOver && admitted.addressHash) void releaseSocket(admitted.addressHash).catch(() => undefined);
        };
        if (socket.destroyed) return giveBack();
        socket.once('close', giveBack);
        wss.handleUpgrade(req, socket, head, (ws) => {
          handedOver = true;
          socket.off('close', giveBack);
          wss.emit('connection', ws, req, admitted.addressHash);
        });
      },
      (err) => {
        process.stderr.write(`local runtime: cable: admission failed: ${(err as Error).stack ?? String(err)}\n`);
        socket.destroy();
      },
    );
    admitting.add(admission);
    void admission.finally(() => admitting.delete(admission));
  };
  server.on('upgrade', onUpgrade);

  // Each connection's work still to do (its frames, then its removal once closed): closing the server
  // waits for it, so nothing of a connection reaches the table after the runtime stopped it.
  const work = new Map<string, Promise<unknown>>();

  wss.on('connection', (ws: WebSocket, _req: IncomingMessage, addressHash?: string) => {
    const id = `${opts.idPrefix ?? ''}${randomBytes(12).toString('base64url')}`;
    // One connection's frames are handled one after another, in the order they came.
    let chain: Promise<unknown> = openConnection(id, { welcomed: true, lifetimeMs: LOCAL_LIFETIME_MS, addressHash }).then(() => {
      sockets.set(id, ws);
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frames.welcome()));
    });
    const queue = (next: () => Promise<unknown>) => {
      const mine = (chain = chain
        .then(next)
        .catch((err) => process.stderr.write(`local runtime: cable: ${(err as Error).stack ?? String(err)}\n`)));
      work.set(id, mine);
      void mine.then(() => work.get(id) === mine && work.delete(id));
    };
    work.set(id, chain);
    // Frames in the current minute: past the limit the socket is closed and nothing more is handled.
    let minute = 0;
    let framesInMinute = 0;
    ws.on('message', (data, isBinary) => {
      const at = Math.floor(Date.now() / 60_000);
      if (at !== minute) [minute, framesInMinute] = [at, 0];
      if (++framesInMinute > MAX_FRAMES_PER_MINUTE) {
        if (ws.readyState === WebSocket.OPEN) ws.close(FRAME_LIMIT_CLOSE_CODE, 'frame rate exceeded');
        return;
      }
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
    async close(connectionId) {
      const ws = sockets.get(connectionId);
      if (ws?.readyState === WebSocket.OPEN) ws.close(FRAME_LIMIT_CLOSE_CODE, 'frame rate exceeded');
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
      await Promise.all(admitting);
      // Each client's own 'close' listener (above) queues its removal before these resolve.
      const closed = [...wss.clients].map(
        (ws) => new Promise<void>((resolve) => (ws.readyState === WebSocket.CLOSED ? resolve() : ws.once('close', () => resolve()))),
      );
      for (const ws of wss.clients) ws.terminate();
      await Promise.all(closed);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await Promise.all(work.values());
    },
  };
}
