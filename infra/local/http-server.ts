import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { compileRoutes } from './router.ts';
import { functionName, type Route } from '../routes.ts';
import { invoke } from './invocations.ts';
import { asFunction } from './recorder.ts';

// The local stand-in for API Gateway (HTTP API, payload format 2.0): the same handler modules get the
// same event shape.

const API_GATEWAY_MAX_BODY = 10 * 1024 * 1024;
const TEXT_TYPES = /^(application\/(json|x-www-form-urlencoded|.*\+json|xml)|text\/)/i;

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

const modules = new Map<string, Promise<Handler>>();

export function loadHandler(root: string, route: Route): Promise<Handler> {
  let h = modules.get(route.handler);
  if (!h) {
    h = import(pathToFileURL(resolve(root, route.handler)).href).then((m) => m.handler as Handler);
    modules.set(route.handler, h);
  }
  return h;
}

export function lambdaContext(functionName: string, timeoutMs = 29_000): Context {
  const started = Date.now();
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, timeoutMs - (Date.now() - started)),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function errorBody(description: string, code: string) {
  return JSON.stringify({ description, errors: [{ field: '', message: description, code }] });
}

/**
 * The most a request's line and headers may take (Node's default, stated): beyond it Node's parser stops
 * and the 'clientError' handler below answers 431 in the error body.
 */
export const MAX_HEADER_BYTES = 16 * 1024;

/** What a request Node's parser refused is answered: the error body, as every other refusal. */
function clientErrorAnswer(err: NodeJS.ErrnoException): { status: number; reason: string; description: string; code: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        description: `The request line and headers are larger than ${MAX_HEADER_BYTES} bytes`,
        code: 'too_large',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', description: 'The request did not arrive in time', code: 'timeout' };
    default:
      return { status: 400, reason: 'Bad Request', description: 'The request is not valid HTTP', code: 'malformed' };
  }
}

function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const partial = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (err.code === 'ECONNRESET' || !socket.writable || partial) return void socket.destroy();
  const a = clientErrorAnswer(err);
  const body = errorBody(a.description, a.code);
  socket.end(
    `HTTP/1.1 ${a.status} ${a.reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** How long a request may take to send its body before it is answered 408 (API Gateway's own bound is 30 s). */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

type BodyRead = Buffer | 'too_large' | 'timeout' | 'aborted';

/** The whole body, or why not: a client that stalls or sends too much never holds the request open. */
function readBody(req: IncomingMessage, timeoutMs: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (out: BodyRead) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('aborted', onAbort);
      // The rest of a refused body is read and dropped, so the answer can still be written.
      if (!Buffer.isBuffer(out)) req.on('error', () => undefined).resume();
      resolve(out);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > API_GATEWAY_MAX_BODY) return done('too_large');
      chunks.push(chunk);
    };
    const onEnd = () => done(Buffer.concat(chunks));
    const onAbort = () => done('aborted');
    const timer = setTimeout(() => done('timeout'), timeoutMs);
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('aborted', onAbort);
  });
}

export function buildEvent(
  req: IncomingMessage,
  url: URL,
  body: Buffer,
  routeKey: string,
  pathParameters: Record<string, string>,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'cookie') continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const contentType = headers['content-type'] ?? '';
  const isText = body.length === 0 || contentType === '' || TEXT_TYPES.test(contentType);
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    cookies: req.headers.cookie ? req.headers.cookie.split(/;\s*/) : undefined,
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: Object.keys(pathParameters).length ? pathParameters : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0],
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    body: body.length ? (isText ? body.toString('utf8') : body.toString('base64')) : undefined,
    isBase64Encoded: body.length > 0 && !isText,
  };
}

export interface HttpServerOptions {
  /** See DEFAULT_BODY_TIMEOUT_MS. */
  bodyTimeoutMs?: number;
  /**
   * Whether every part behind the server (table, queues, pollers, platform token) is up. Until it is, and
   * again once stopping begins, every request answers 503 with Retry-After: the port is open early (its
   * number goes into the configuration) but nothing may look ready before it is.
   */
  isReady?: () => boolean;
}

/** Requests being answered, per server (closeGracefully waits for them). */
const inFlight = new WeakMap<Server, { count: number; idle: (() => void)[] }>();

/**
 * Stops taking connections and waits for the requests being answered to finish (at most `graceMs`), then
 * closes every connection: a stop never cuts a request that already began, so a write the client saw
 * acknowledged is one the service finished (its storage stops only after this).
 */
export async function closeGracefully(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((res) => server.close(() => res()));
  server.closeIdleConnections();
  const state = inFlight.get(server);
  if (state?.count) {
    await Promise.race([new Promise<void>((res) => state.idle.push(res)), new Promise<void>((res) => setTimeout(res, graceMs).unref())]);
  }
  server.closeAllConnections();
  await closed;
}

export function createHttpServer(root: string, routes: Route[], opts: HttpServerOptions = {}): Server {
  const match = compileRoutes(routes);
  const bodyTimeoutMs = opts.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const state = { count: 0, idle: [] as (() => void)[] };
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, async (req: IncomingMessage, res: ServerResponse) => {
    state.count++;
    res.once('close', () => {
      if (--state.count === 0) for (const done of state.idle.splice(0)) done();
    });
    const send = (status: number, headers: Record<string, string>, body: string | Buffer) => {
      res.writeHead(status, headers);
      res.end(body);
    };
    // A request whose body was refused unread leaves the connection in an unknown state: close it.
    const refuse = (status: number, description: string, code: string) => {
      res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
      res.end(errorBody(description, code), () => req.socket.destroySoon());
    };
    try {
      if (opts.isReady && !opts.isReady()) {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
        return void res.end(errorBody('The service is starting or stopping; try again in a moment', 'unavailable'));
      }
      const url = new URL(req.url ?? '/', 'http://localhost');
      const body = await readBody(req, bodyTimeoutMs);
      if (body === 'aborted') return void req.socket.destroy();
      if (body === 'too_large') return refuse(413, 'Request body is too large', 'too_large');
      if (body === 'timeout') return refuse(408, `The request body did not arrive within ${bodyTimeoutMs} ms`, 'timeout');
      const m = match(req.method ?? 'GET', url.pathname);
      if (!m) {
        return send(404, { 'content-type': 'application/json' }, errorBody('No route matches this method and path', 'not_found'));
      }
      const event = buildEvent(req, url, body, m.routeKey, m.pathParameters);
      // As the route's function: its module's loading and its run (the deploy proof's recording).
      const name = functionName(m.route);
      const out = await asFunction(name, async () => {
        const handler = await loadHandler(root, m.route);
        return invoke(name, () => handler(event, lambdaContext(m.route.handler)));
      });
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(out.headers ?? {})) headers[k] = String(v);
      const payload = out.body === undefined ? '' : out.isBase64Encoded ? Buffer.from(out.body, 'base64') : out.body;
      send(out.statusCode ?? 200, headers, payload);
    } catch (err) {
      // A handler that throws past its own error boundary: API Gateway answers 500 the same way.
      process.stderr.write(`local runtime: handler crashed: ${(err as Error).stack ?? String(err)}\n`);
      if (!res.headersSent) send(500, { 'content-type': 'application/json' }, errorBody('Internal server error', 'internal'));
    }
  });
  // Idle keep-alive connections outlive the clients' own idle timers (undici's 4 s, most agents' under a
  // minute), as API Gateway's do: a server that closes first races a client reusing the socket, and the
  // client's request dies with "other side closed".
  server.on('clientError', answerClientError);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  inFlight.set(server, state);
  return server;
}
