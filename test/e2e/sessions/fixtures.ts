import { request as httpRequest } from 'node:http';
import { randomInt } from 'node:crypto';
import type { Client, Res } from '../../support/runtime.ts';
import { unseal } from '#shared/crypto/tokens.ts';
import { getPasswordReset } from '#shared/db/repositories/sessions.ts';
import type { PasswordResetRecord } from '#shared/model/sessions.ts';
import { until } from '../../support/until.ts';

/**
 * An HTTP client that connects from a loopback address of its own (127.x.y.z), so that per-address
 * sign-in throttling in one test never counts another test's attempts.
 */
export function fromAddress(
  baseUrl: string,
  address = `127.${randomInt(1, 250)}.${randomInt(1, 250)}.${randomInt(2, 250)}`,
): Client & { address: string } {
  const base = new URL(baseUrl);
  const request = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    new Promise<Res>((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = httpRequest(
        {
          host: base.hostname,
          port: base.port,
          method,
          path,
          localAddress: address,
          headers: { ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}), ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              parsed = text;
            }
            const h = new Headers();
            for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(',') : v);
            resolve({ status: res.statusCode ?? 0, body: parsed as any, headers: h, text });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return {
    address,
    request,
    get: (p, h) => request('GET', p, undefined, h),
    post: (p, b, h) => request('POST', p, b, h),
    patch: (p, b, h) => request('PATCH', p, b, h),
    put: (p, b, h) => request('PUT', p, b, h),
    delete: (p, b, h) => request('DELETE', p, b, h),
  };
}

export type SessionHeaders = { 'access-token': string; client: string; uid: string };

export function sessionHeadersOf(res: Res): SessionHeaders {
  return { 'access-token': res.headers.get('access-token')!, client: res.headers.get('client')!, uid: res.headers.get('uid')! };
}

/** A client that sends only a signed-in session's headers, as the mobile app's API service does. */
export function sessionClient(baseUrl: string, headers: SessionHeaders): Client {
  const c = fromAddress(baseUrl, '127.0.0.1');
  const withSession = (h?: Record<string, string>) => ({ ...headers, ...(h ?? {}) });
  return {
    request: (m, p, b, h) => c.request(m, p, b, withSession(h)),
    get: (p, h) => c.get(p, withSession(h)),
    post: (p, b, h) => c.post(p, b, withSession(h)),
    patch: (p, b, h) => c.patch(p, b, withSession(h)),
    put: (p, b, h) => c.put(p, b, withSession(h)),
    delete: (p, b, h) => c.delete(p, b, withSession(h)),
  };
}

/**
 * The reset link the pipeline issued to a user (what its mail carries: the item's sealed copy, opened),
 * waiting until there is one issued by another request than `otherThan`.
 */
export async function resetLinkOf(
  userId: number,
  otherThan?: string,
  timeoutMs = 30_000,
): Promise<{ token: string; item: PasswordResetRecord }> {
  let last: PasswordResetRecord | undefined;
  const item = await until(
    async () => {
      last = await getPasswordReset(userId);
      return last?.sealed_token && last.request_id !== otherThan ? last : undefined;
    },
    { what: () => `a reset link issued to user ${userId} (the item: ${JSON.stringify(last)})`, timeoutMs },
  );
  return { token: await unseal(item.sealed_token!), item };
}
