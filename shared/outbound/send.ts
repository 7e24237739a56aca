import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { BlockedAddressError, guardedLookup, isAllowedTarget, type Resolver, type TargetPolicy } from './address-guard.ts';

export interface SendResult {
  ok: boolean;
  status?: number;
  error?: string;
  /** Retrying cannot help (the target is refused by policy or the URL is unusable). */
  permanent?: boolean;
}

/**
 * One POST of a JSON body: no redirects followed (a 3xx is a failure), a hard timeout over the whole
 * exchange, success only on 2xx.
 */
export function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; targets: TargetPolicy; resolve?: Resolver },
): Promise<SendResult> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ ok: false, error: 'invalid URL', permanent: true });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return Promise.resolve({ ok: false, error: `unsupported scheme ${target.protocol}`, permanent: true });
  }
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) && !isAllowedTarget(literal, opts.targets)) {
    return Promise.resolve({ ok: false, error: new BlockedAddressError(literal).message, permanent: true });
  }
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = send(
      target,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'user-agent': 'chatwoot-serverless-webhooks/1',
          'content-length': String(Buffer.byteLength(body)),
          ...headers,
        },
        lookup: guardedLookup(opts.targets, opts.resolve) as never,
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          finish(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `HTTP ${status}` });
        });
        res.on('error', (e) => finish({ ok: false, error: e.message }));
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`timed out after ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    req.on('error', (e) =>
      finish({ ok: false, error: e.message, permanent: e instanceof BlockedAddressError || e.name === 'BlockedAddressError' }),
    );
    req.end(body);
  });
}
