import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { until } from './until.ts';

// A real webhook receiver on 127.0.0.1: records what arrives and answers as told.

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Status (and optional delay, or a promise to hold the answer until) for the next request; defaults to 200 immediately. */
  respond: (fn: (req: Received, n: number) => Answer) => void;
  waitFor: (count: number, timeoutMs?: number) => Promise<Received[]>;
  close: () => Promise<void>;
}

export interface Answer {
  status: number;
  delayMs?: number;
  /** Holds the answer until this settles (a receiver that is still busy, without a guess at how long). */
  until?: Promise<unknown>;
  headers?: Record<string, string>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let answer: (req: Received, n: number) => Answer = () => ({ status: 200 });
  let attempts = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const r: Received = { headers: req.headers, body, json, at: Date.now() };
      const a = answer(r, ++attempts);
      const reply = () => {
        if (a.status >= 200 && a.status < 300) received.push(r);
        res.writeHead(a.status, a.headers ?? {});
        res.end();
      };
      if (a.until) void a.until.then(reply);
      else if (a.delayMs) setTimeout(reply, a.delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  return {
    url,
    received,
    respond: (fn) => (answer = fn),
    async waitFor(count, timeoutMs = 15_000) {
      await until(() => received.length >= count, {
        what: () => `${count} deliveries (the receiver got ${received.length})`,
        timeoutMs,
        everyMs: 50,
      });
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
