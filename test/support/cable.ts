import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';

// A socket client as Chatwoot's clients are (no vitest imports here: the bench uses it too). It keeps
// every frame it received, parsed, with the time it arrived.

export interface Received {
  at: number;
  frame: any;
}

export interface CableClient {
  ws: WebSocket;
  received: Received[];
  /** The sub-protocol the server chose ('' for none). */
  protocol: string;
  send(frame: unknown): void;
  sendRaw(data: string | Buffer): void;
  /** `{"channel":"RoomChannel",…}` as the identifier string clients send. */
  subscribe(params: Record<string, unknown>): string;
  /** A data frame's message of this event, when it came. */
  events(name: string, pred?: (data: any) => boolean): any[];
  waitFor<T = any>(pred: (frame: any) => boolean, timeoutMs?: number): Promise<T>;
  waitForEvent(name: string, pred?: (data: any) => boolean, timeoutMs?: number): Promise<any>;
  closed: Promise<{ code: number }>;
  close(): Promise<void>;
}

export const cableUrl = (baseUrl: string) => `${baseUrl.replace(/^http/, 'ws')}/cable`;

export const roomIdentifier = (params: Record<string, unknown>) => JSON.stringify({ channel: 'RoomChannel', ...params });

/** A refused handshake: the HTTP status the server answered instead of 101. */
export class HandshakeRefused extends Error {
  constructor(
    readonly status: number,
    readonly retryAfter: string | undefined,
  ) {
    super(`handshake refused: ${status}`);
  }
}

export async function connectCable(baseUrl: string, opts: { protocols?: string[]; localAddress?: string } = {}): Promise<CableClient> {
  const protocols = opts.protocols ?? ['actioncable-v1-json', 'actioncable-unsupported'];
  const ws = new WebSocket(
    cableUrl(baseUrl),
    protocols.length ? protocols : undefined,
    opts.localAddress ? { localAddress: opts.localAddress } : {},
  );
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data) => {
    let frame: unknown;
    try {
      frame = JSON.parse(String(data));
    } catch {
      frame = { unparsed: String(data) };
    }
    received.push({ at: Date.now(), frame });
    for (const w of [...waiters]) w();
  });
  const closed = new Promise<{ code: number }>((resolve) => ws.on('close', (code) => resolve({ code })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => {
      const retryAfter = res.headers['retry-after'];
      res.resume();
      ws.terminate();
      reject(new HandshakeRefused(res.statusCode ?? 0, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter));
    });
  });
  ws.on('error', () => undefined);
  const isEvent = (f: any, name: string, pred: (d: any) => boolean) => f?.message?.event === name && pred(f.message.data);
  const client: CableClient = {
    ws,
    received,
    protocol: ws.protocol,
    send: (frame) => ws.send(JSON.stringify(frame)),
    sendRaw: (data) => ws.send(data),
    subscribe(params) {
      const identifier = roomIdentifier(params);
      ws.send(JSON.stringify({ command: 'subscribe', identifier }));
      return identifier;
    },
    events: (name, pred = () => true) => received.filter((r) => isEvent(r.frame, name, pred)).map((r) => r.frame.message.data),
    waitFor(pred, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = received.find((r) => pred(r.frame));
          if (hit) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(hit.frame);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `timed out; received: ${JSON.stringify(received.map((r) => r.frame).filter((f) => f.type !== 'ping')).slice(0, 2000)}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async waitForEvent(name, pred = () => true, timeoutMs) {
      const f = await client.waitFor((fr) => isEvent(fr, name, pred), timeoutMs);
      return f.message.data;
    },
    closed,
    async close() {
      if (ws.readyState === WebSocket.CLOSED) return;
      ws.close();
      await closed;
    },
  };
  return client;
}

/**
 * A stand-in for API Gateway's management API on 127.0.0.1 (the deployed functions' CABLE_ENDPOINT):
 * answers `POST /@connections/{id}` with 200 and keeps each frame, so the socket functions make real SDK
 * calls (the deploy proof records them) without AWS.
 */
export async function startManagementApi(): Promise<{
  url: string;
  posted: { connectionId: string; frame: any }[];
  close(): Promise<void>;
}> {
  const posted: { connectionId: string; frame: any }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const m = /^\/(?:[^/]+\/)?@connections\/([^/?]+)/.exec(req.url ?? '');
      if (req.method !== 'POST' || !m) {
        res.writeHead(404).end();
        return;
      }
      let frame: unknown;
      try {
        frame = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        frame = undefined;
      }
      posted.push({ connectionId: decodeURIComponent(m[1]), frame });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, posted, close: () => new Promise<void>((r) => server.close(() => r())) };
}
