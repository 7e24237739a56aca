// HTTP client helpers shared by the tests and the bench (no vitest imports here).

export interface Res<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface Client {
  request<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Res<T>>;
  get<T = any>(path: string, headers?: Record<string, string>): Promise<Res<T>>;
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<Res<T>>;
  patch<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<Res<T>>;
  put<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<Res<T>>;
  delete<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<Res<T>>;
}

/** An HTTP client as a Chatwoot SDK would be: JSON bodies, `api_access_token` header. */
export function client(baseUrl: string, token?: string): Client {
  const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const h: Record<string, string> = { ...(token ? { api_access_token: token } : {}), ...headers };
    let payload: string | Buffer | FormData | undefined;
    if (body instanceof FormData || typeof body === 'string' || Buffer.isBuffer(body)) payload = body as never;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    const res = await fetch(baseUrl + path, { method, headers: h, body: payload as never, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed as any, headers: res.headers, text };
  };
  return {
    request,
    get: (p, h) => request('GET', p, undefined, h),
    post: (p, b, h) => request('POST', p, b, h),
    patch: (p, b, h) => request('PATCH', p, b, h),
    put: (p, b, h) => request('PUT', p, b, h),
    delete: (p, b, h) => request('DELETE', p, b, h),
  };
}

export interface SeededAccount {
  accountId: number;
  platform: Client;
  admin: { id: number; token: string; api: Client };
  agent: { id: number; token: string; api: Client };
  /** Prefix for this account's account-interface paths. */
  base: string;
}

let seq = 0;
const uniqueEmail = (role: string) => `${role}-${process.pid}-${Date.now().toString(36)}-${++seq}@example.com`;

/** An account with an administrator and an agent, made through the platform API as a customer would. */
export async function seedAccountVia(baseUrl: string, platform: Client, name: string): Promise<SeededAccount> {
  const app = { api: platform };
  const account = await app.api.post('/platform/api/v1/accounts', { name });
  if (account.status !== 200) throw new Error(`seed account: ${account.status} ${account.text}`);
  const accountId = account.body.id as number;
  const user = async (role: 'administrator' | 'agent') => {
    const u = await app.api.post('/platform/api/v1/users', {
      name: `${role} ${name}`,
      email: uniqueEmail(role),
      password: 'Passw0rd!',
    });
    if (u.status !== 200) throw new Error(`seed user: ${u.status} ${u.text}`);
    const link = await app.api.post(`/platform/api/v1/accounts/${accountId}/account_users`, { user_id: u.body.id, role });
    if (link.status !== 200) throw new Error(`seed link: ${link.status} ${link.text}`);
    return { id: u.body.id as number, token: u.body.access_token as string, api: client(baseUrl, u.body.access_token) };
  };
  return {
    accountId,
    platform: app.api,
    admin: await user('administrator'),
    agent: await user('agent'),
    base: `/api/v1/accounts/${accountId}`,
  };
}

/**
 * A JWT with its signature changed, always: the signature's first character replaced (its last one may carry
 * bits that are not decoded, so changing only the end can leave the signature as it was).
 */
export function forgedJwt(jwt: string): string {
  const at = jwt.lastIndexOf('.') + 1;
  return `${jwt.slice(0, at)}${jwt[at] === 'A' ? 'B' : 'A'}${jwt.slice(at + 1)}`;
}
