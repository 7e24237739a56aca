import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { until } from './until.ts';

// A fake messaging provider on 127.0.0.1 (WhatsApp Cloud, 360dialog, Twilio, Bandwidth): records every request,
// answers by the first route whose method and path match, as the test tells it.

export interface ProviderRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  form: URLSearchParams;
}

export interface ProviderReply {
  status?: number;
  json?: unknown;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

type Route = { method: string; path: RegExp; reply: (req: ProviderRequest, n: number) => ProviderReply };

export interface FakeProvider {
  url: string;
  requests: ProviderRequest[];
  /** Adds a route in front of the others (a later `on` for the same path wins). */
  on(method: string, path: RegExp, reply: (req: ProviderRequest, n: number) => ProviderReply): void;
  waitFor(match: (r: ProviderRequest) => boolean, count?: number, timeoutMs?: number): Promise<ProviderRequest[]>;
  close(): Promise<void>;
  /** The process may end while it listens. */
  unref(): void;
}

export async function startFakeProvider(): Promise<FakeProvider> {
  const routes: Route[] = [];
  const requests: ProviderRequest[] = [];
  const counts = new Map<Route, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const r: ProviderRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        json,
        form: new URLSearchParams(body),
      };
      requests.push(r);
      const route = routes.find((x) => x.method === r.method && x.path.test(r.path));
      if (!route) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no fake route for ${r.method} ${r.path}` } }));
        return;
      }
      const n = (counts.get(route) ?? 0) + 1;
      counts.set(route, n);
      const a = route.reply(r, n);
      const payload = a.json !== undefined ? JSON.stringify(a.json) : (a.body ?? '');
      res.writeHead(a.status ?? 200, { ...(a.json !== undefined ? { 'content-type': 'application/json' } : {}), ...a.headers });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    requests,
    on: (method, path, reply) => {
      routes.unshift({ method, path, reply });
    },
    async waitFor(match, count = 1, timeoutMs = 20_000) {
      return until(
        () => {
          const found = requests.filter(match);
          return found.length >= count ? found : undefined;
        },
        { what: () => `${count} provider requests (got ${requests.filter(match).length} of ${requests.length})`, timeoutMs, everyMs: 50 },
      );
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    unref: () => void server.unref(),
  };
}

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * The providers every test and the bench reach unless a test points a base URL at its own fake: a channel inbox's
 * creation checks its credentials with the provider, and nothing may leave the machine. It takes every request
 * (templates: none).
 */
export async function startProviderStub(): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  const stub = await startFakeProvider();
  stub.on('GET', /message_templates$/, () => ({ json: { data: [] } }));
  stub.on('GET', /\/configs\/templates$/, () => ({ json: { waba_templates: [] } }));
  stub.on('GET', /./, () => ({ json: {} }));
  stub.on('POST', /./, () => ({ json: {} }));
  stub.unref();
  return {
    env: {
      WHATSAPP_CLOUD_BASE_URL: stub.url,
      DIALOG360_BASE_URL: stub.url,
      TWILIO_API_BASE_URL: stub.url,
      TWILIO_CONTENT_BASE_URL: stub.url,
      BANDWIDTH_API_BASE_URL: stub.url,
    },
    close: stub.close,
  };
}
