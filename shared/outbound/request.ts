import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { BlockedAddressError, guardedLookup, isAllowedTarget, type Resolver, type TargetPolicy } from './address-guard.ts';

// One HTTP exchange with a third party (a messaging provider's API, a media download) through the address
// guard: no redirects followed unless asked, a hard timeout over the whole exchange, the answer's body read
// up to a bound. Deliveries (send.ts) keep their own bodiless POST.

export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  targets: TargetPolicy;
  /** The answer's body is cut off (and the exchange failed) beyond this many bytes. */
  maxResponseBytes: number;
  /** Redirects followed (media hosts answer with one); none by default. */
  maxRedirects?: number;
  resolve?: Resolver;
}

export interface OutboundResponse {
  /** Set when an answer came; absent on a network error, a timeout or a refused address. */
  status?: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** Why no (complete) answer came. */
  error?: string;
  /** Retrying cannot help (the address is refused by policy, the URL is unusable, the answer is too large). */
  permanent?: boolean;
}

const fail = (error: string, permanent = false): OutboundResponse => ({ headers: {}, body: Buffer.alloc(0), error, permanent });

export async function outboundRequest(req: OutboundRequest): Promise<OutboundResponse> {
  let res = await once(req);
  let hops = 0;
  while (res.status && res.status >= 300 && res.status < 400 && hops < (req.maxRedirects ?? 0)) {
    const location = res.headers.location;
    if (typeof location !== 'string') break;
    hops++;
    // A redirect is followed as a GET without the credentials the first request carried.
    res = await once({ ...req, method: 'GET', body: undefined, headers: {}, url: new URL(location, req.url).toString() });
  }
  return res;
}

function once(req: OutboundRequest): Promise<OutboundResponse> {
  let target: URL;
  try {
    target = new URL(req.url);
  } catch {
    return Promise.resolve(fail('invalid URL', true));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    return Promise.resolve(fail(`unsupported scheme ${target.protocol}`, true));
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) && !isAllowedTarget(literal, req.targets)) return Promise.resolve(fail(new BlockedAddressError(literal).message, true));
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: OutboundResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const r = send(
      target,
      {
        method: req.method,
        headers: {
          'user-agent': 'chatwoot-serverless/1',
          ...(body ? { 'content-length': String(body.length) } : {}),
          ...req.headers,
        },
        lookup: guardedLookup(req.targets, req.resolve) as never,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > req.maxResponseBytes) {
            res.destroy();
            finish(fail(`answer larger than ${req.maxResponseBytes} bytes`, true));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => finish({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', (e) => finish(fail(e.message)));
      },
    );
    const timer = setTimeout(() => r.destroy(new Error(`timed out after ${req.timeoutMs} ms`)), req.timeoutMs);
    r.on('error', (e) => finish(fail(e.message, e instanceof BlockedAddressError || e.name === 'BlockedAddressError')));
    r.end(body);
  });
}
