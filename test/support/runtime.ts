import { inject } from 'vitest';
import { startRuntime, type Runtime } from '../../infra/local/runtime.ts';
import { createPlatformApp } from '../../shared/domain/platform/service.ts';

// The local runtime for this worker: real HTTP, real DynamoDB Local, real queues.

let shared: Promise<Runtime> | undefined;

export function runtime(): Promise<Runtime> {
  const worker = process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? '0';
  shared ??= startRuntime({
    dynamodbEndpoint: inject('dynamodbEndpoint'),
    awsEndpoint: inject('awsEndpoint'),
    accessKeyId: `worker${worker}`,
    namePrefix: `w${worker}-`,
    logLevel: process.env.LOG_LEVEL,
  });
  return shared;
}

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
    let parsed: unknown = undefined;
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

let counter = 0;
/** Unique within the run (workers share nothing, but files in one worker share the table). */
export const unique = (prefix = 'x') => `${prefix}${process.pid}-${Date.now().toString(36)}-${++counter}`;

/** A fresh platform app of its own, so tests never see each other's objects. */
export async function newPlatformApp() {
  const rt = await runtime();
  const app = await createPlatformApp(unique('app-'));
  return { ...app, api: client(rt.baseUrl, app.token) };
}

export interface SeededAccount {
  accountId: number;
  platform: Client;
  admin: { id: number; token: string; api: Client };
  agent: { id: number; token: string; api: Client };
  /** Prefix for this account's account-interface paths. */
  base: string;
}

/** An account with an administrator and an agent, made through the platform API as a customer would. */
export async function seedAccount(name = unique('acct-')): Promise<SeededAccount> {
  const rt = await runtime();
  const app = await newPlatformApp();
  const account = await app.api.post('/platform/api/v1/accounts', { name });
  if (account.status !== 200) throw new Error(`seed account: ${account.status} ${account.text}`);
  const accountId = account.body.id as number;
  const user = async (role: 'administrator' | 'agent') => {
    const u = await app.api.post('/platform/api/v1/users', {
      name: `${role} ${name}`,
      email: `${unique(role)}@example.com`,
      password: 'Passw0rd!',
    });
    if (u.status !== 200) throw new Error(`seed user: ${u.status} ${u.text}`);
    const link = await app.api.post(`/platform/api/v1/accounts/${accountId}/account_users`, { user_id: u.body.id, role });
    if (link.status !== 200) throw new Error(`seed link: ${link.status} ${link.text}`);
    return { id: u.body.id as number, token: u.body.access_token as string, api: client(rt.baseUrl, u.body.access_token) };
  };
  return {
    accountId,
    platform: app.api,
    admin: await user('administrator'),
    agent: await user('agent'),
    base: `/api/v1/accounts/${accountId}`,
  };
}

/** Asserts the spec's error body and returns it. */
export function expectErrorBody(res: Res, status: number) {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  const b = res.body;
  if (typeof b?.description !== 'string' || !Array.isArray(b?.errors)) throw new Error(`not an error body: ${res.text}`);
  for (const e of b.errors) {
    if (typeof e.field !== 'string' || typeof e.message !== 'string' || typeof e.code !== 'string') {
      throw new Error(`bad error entry: ${JSON.stringify(e)}`);
    }
  }
  return b as { description: string; errors: { field: string; message: string; code: string }[] };
}
