import { Agent, request as httpRequest } from 'node:http';
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ROUTE, methodsOf, routeKeyOf, routes } from '../../../infra/routes.ts';
import { scenarios } from '../../../bench/scenarios/index.ts';
import type { BenchWorld, BenchRequest } from '../../../bench/scenarios/types.ts';
import openapi from '../../../openapi.json' with { type: 'json' };
import { client, seedAccountVia } from '../../support/http.ts';
import { runtime, unique } from '../../support/runtime.ts';

// Bad input over the whole route table: every route, called as its bench scenario calls it (so with a
// valid credential of the right kind and ids that exist), is sent the families of malformed input a
// careless or hostile client sends — broken and non-object JSON, wrong and missing content types, JSON
// nested thousands deep; each body field (the route's documented ones and the scenario's own, two levels
// down) as control characters, a number out of range, a fraction, a numeric string, an array, an object
// with an empty name, an object nested past DynamoDB's 32 levels, a 3 KB string and — where 3 KB was taken —
// a 500 KB one and 150,000 three-byte characters, an array field repeated to the body limit; each path
// parameter negative, fractional, huge, non-numeric, NUL, a broken escape or 3 KB long; each query parameter
// long, odd or repeated; a 16 KB query string, an oversized header and oversized credentials; unknown paths
// and methods. No answer may be a 5xx, and every 4xx carries the error body as JSON (`Accept:
// application/json` is asked). The event pipeline rests while it runs: the answers are the subject.

const K3 = 'a'.repeat(3 * 1024);
const K500 = 'b'.repeat(500 * 1024);
/** Within a 150,000-character bound, yet 450 KB of UTF-8: more than a DynamoDB item holds. */
const WIDE = '☃'.repeat(150_000);
const CONTROL = 'a\u0000b\u0001\u0007\u001b[31m\u007f\u200b\u202e\ufeff\ud800 ☃ 😀\r\n\t';
/** Nested past DynamoDB's 32 levels. */
const DEEP = JSON.parse(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`);
const FIELD_VALUES: [string, unknown][] = [
  ['control characters', CONTROL],
  ['huge number', 1e21],
  ['negative fraction', -1.5],
  ['numeric string', '12'],
  ['array', [K3]],
  ['object', { k: K3, '': 1 }],
  ['deep object', DEEP],
];
const PATH_VALUES: [string, string][] = [
  ['negative', '-1'],
  ['fraction', '1.5'],
  ['huge', '99999999999999999999999'],
  ['word', 'abc'],
  ['NUL', '%00'],
  ['bad escape', '%ZZ'],
  ['unicode', '%E2%98%83%F0%9F%98%80'],
  ['3 KB', 'c'.repeat(3 * 1024)],
];
const RAW_BODIES: [string, string | undefined, string | undefined][] = [
  ['malformed JSON', 'application/json', '{"a": '],
  ['array body', 'application/json', '[{"a": 1}]'],
  ['string body', 'application/json', '"text"'],
  ['number body', 'application/json', '42'],
  ['null body', 'application/json', 'null'],
  ['empty JSON body', 'application/json', ''],
  ['no body', undefined, undefined],
  ['text/plain', 'text/plain', 'hello'],
  ['xml', 'application/xml', '<a>1</a>'],
  ['broken multipart', 'multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1'],
  ['odd form keys', 'application/x-www-form-urlencoded', 'a[b][][c]=1&a[]=2&__proto__[x]=1&constructor[prototype][y]=2&=&[]=3'],
  ['deep JSON', 'application/json', `{"x":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`],
];

type Json = Record<string, any>;
const schemas = (openapi as Json).components.schemas as Record<string, Json>;
const deref = (s: Json | undefined): Json | undefined => (s?.$ref ? schemas[String(s.$ref).split('/').pop()!] : s);

/** The documented body fields of an operation, with the nested ones of its object fields (`a.b`). */
function documentedFields(op: Json | undefined): string[] {
  const body = deref(op?.requestBody?.content?.['application/json']?.schema ?? op?.requestBody?.content?.['multipart/form-data']?.schema);
  const out: string[] = [];
  const walk = (s: Json | undefined, prefix: string, depth: number) => {
    for (const [name, prop] of Object.entries((s?.properties ?? {}) as Record<string, Json>)) {
      out.push(prefix + name);
      if (depth === 0)
        for (const alt of [prop, ...(prop.anyOf ?? [])]) if (deref(alt)?.properties) walk(deref(alt), `${prefix}${name}.`, 1);
    }
  };
  walk(body, '', 0);
  return out;
}

/** The scenario body's own fields (two levels). */
function bodyFields(body: unknown): string[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(body)) {
    out.push(k);
    if (v && typeof v === 'object' && !Array.isArray(v)) for (const k2 of Object.keys(v)) out.push(`${k}.${k2}`);
  }
  return out;
}

function withField(body: unknown, field: string, value: unknown): Json {
  // A multipart scenario (a FormData body) has its fields changed in a JSON body of their own.
  const copy: Json = body && typeof body === 'object' && !Array.isArray(body) && !(body instanceof FormData) ? structuredClone(body) : {};
  const [a, b] = field.split('.');
  if (b === undefined) copy[a] = value;
  else copy[a] = { ...(copy[a] && typeof copy[a] === 'object' && !Array.isArray(copy[a]) ? copy[a] : {}), [b]: value };
  return copy;
}

const queryParams = (op: Json | undefined) => ((op?.parameters ?? []) as Json[]).filter((p) => p.in === 'query').map((p) => String(p.name));

interface Probe {
  route: string;
  family: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Sent only when this one was accepted (2xx): a field that takes 3 KB is tried with 500 KB. */
  then?: Probe[];
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

// Sign-in throttling counts failed attempts per address: the fuzz's come from a loopback address of its own.
const LOCAL_ADDRESS = `127.${randomInt(1, 250)}.${randomInt(1, 250)}.${randomInt(2, 250)}`;
const agent = new Agent({ keepAlive: true, maxSockets: 4 });

function send(baseUrl: string, p: Probe): Promise<Answer> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const payload = p.body === undefined ? undefined : Buffer.from(p.body, 'utf8');
    const req = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: p.method,
        path: p.path,
        agent,
        localAddress: LOCAL_ADDRESS,
        headers: { accept: 'application/json', ...p.headers, ...(payload ? { 'content-length': String(payload.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** What is wrong with an answer, or undefined. */
function fault(a: Answer): string | undefined {
  if (a.status >= 500) return `${a.status}`;
  if (a.status < 400) return undefined;
  if (!/^application\/json\b/.test(a.contentType)) return `${a.status} as ${a.contentType || 'no content type'}`;
  let b: any;
  try {
    b = JSON.parse(a.text);
  } catch {
    return `${a.status} not JSON`;
  }
  if (typeof b?.description !== 'string' || !Array.isArray(b?.errors)) return `${a.status} not the error body`;
  if (!b.errors.every((e: any) => typeof e?.field === 'string' && typeof e?.message === 'string' && typeof e?.code === 'string'))
    return `${a.status} bad error entry`;
  return undefined;
}

/**
 * The headers a scenario's client sends (its credential), caught from a call that never leaves: every
 * client calls fetch at once, so the stand-in is in place for that call only, whatever runs beside it.
 */
async function headersOf(req: BenchRequest, fallback: BenchWorld['platform']): Promise<Record<string, string>> {
  // A client bound to a loopback address of its own (the throttled routes' scenarios) sends through node's
  // http, never fetch, and carries no credential.
  if (req.client && 'address' in req.client) return {};
  const original = globalThis.fetch;
  let caught: Record<string, string> | undefined;
  globalThis.fetch = (async (_url: unknown, init?: RequestInit) => {
    caught = Object.fromEntries(new Headers(init?.headers).entries());
    return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  let call: Promise<unknown>;
  try {
    call = (req.client ?? fallback).request('GET', '/health');
  } finally {
    globalThis.fetch = original;
  }
  await call;
  if (!caught) throw new Error('the client did not call fetch at once');
  delete caught['content-type'];
  return caught;
}

async function pool<T>(items: T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await run(items[next++]);
    }),
  );
}

describe('bad input over the whole route table', () => {
  let baseUrl: string;
  let pipeline: { pause(): Promise<void>; resume(): Promise<void> } | undefined;
  const probes: Probe[] = [];
  const broken: string[] = [];
  // The scenarios' setups at their smallest: a day of report data, one call's worth of conversations, five CSAT responses.
  const restoreEnv = {
    BENCH_REPORT_DAYS: process.env.BENCH_REPORT_DAYS,
    BENCH_ITERATIONS: process.env.BENCH_ITERATIONS,
    BENCH_CSAT_RESPONSES: process.env.BENCH_CSAT_RESPONSES,
  };

  beforeAll(async () => {
    const rt = await runtime();
    pipeline = rt.pipeline;
    baseUrl = rt.baseUrl;
    Object.assign(process.env, { BENCH_REPORT_DAYS: '1', BENCH_ITERATIONS: '1', BENCH_CSAT_RESPONSES: '5' });
    const platform = client(rt.baseUrl, rt.platformToken);
    const seeded = await seedAccountVia(rt.baseUrl, platform, unique('fuzz-'));
    const world: BenchWorld = {
      baseUrl: rt.baseUrl,
      platform,
      account: { id: seeded.accountId, base: seeded.base, admin: seeded.admin, agent: seeded.agent },
      unique,
    };
    const calls = routes.filter((r) => r.path !== DEFAULT_ROUTE).flatMap((route) => methodsOf(route).map((method) => ({ route, method })));
    // Independent setups, a few at a time (most of their time is the table's round trips).
    await pool(calls, 4, async ({ route, method }) => {
      const key = routeKeyOf(route, method);
      const sc = scenarios[key];
      if (!sc) return void broken.push(`${key}: no scenario`);
      let req: BenchRequest;
      try {
        const state = sc.setup ? await sc.setup(world) : undefined;
        const prepared = sc.prepare ? await sc.prepare(world, state, 0) : undefined;
        req = sc.request(world, state, prepared, 0);
      } catch (err) {
        return void broken.push(`${key}: setup: ${(err as Error).message}`);
      }
      let headers: Record<string, string>;
      try {
        headers = await headersOf(req, seeded.admin.api);
      } catch (err) {
        return void broken.push(`${key}: credential: ${(err as Error).message}`);
      }
      const op = (openapi as Json).paths[route.path]?.[method.toLowerCase()];
      const [pathname, query = ''] = req.path.split('?');
      const add = (family: string, over: Partial<Probe>) => probes.push({ route: key, family, method, path: req.path, headers, ...over });
      const json = (body: unknown) => ({ headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      // Path parameters, each in turn.
      const template = route.path.split('/');
      const actual = pathname.split('/');
      template.forEach((segment, i) => {
        if (!/^\{\w+\}$/.test(segment) || actual.length !== template.length) return;
        for (const [name, value] of PATH_VALUES) {
          const path = [...actual.slice(0, i), value, ...actual.slice(i + 1)].join('/') + (query ? `?${query}` : '');
          add(`path ${segment} ${name}`, { path, ...(req.body !== undefined ? json(req.body) : {}) });
        }
      });
      // Query strings and headers.
      const sep = query ? '&' : '?';
      add('16 KB query string', { path: `${req.path}${sep}q=${'q'.repeat(16 * 1024)}` });
      add('oversized header', { headers: { ...headers, 'x-fuzz': 'h'.repeat(20 * 1024) } });
      add('oversized credentials', {
        headers: { ...headers, api_access_token: K3, 'x-auth-token': K3, 'access-token': K3, client: K3, uid: K3 },
        ...(req.body !== undefined ? json(req.body) : {}),
      });
      const names = new Set([...queryParams(op), ...new URLSearchParams(query).keys()]);
      for (const name of names) {
        const params = (value: string[]) => {
          const q = new URLSearchParams(query);
          q.delete(name);
          for (const v of value) q.append(name, v);
          return `${pathname}?${q}`;
        };
        add(`query ${name} 3 KB`, { path: params([K3]) });
        add(`query ${name} control characters`, { path: params([CONTROL]) });
        add(`query ${name} repeated`, { path: params(['1', 'x', '']) });
        add(`query ${name} numbers`, { path: params(['-1.5e300']) });
      }
      if (method === 'GET') return;
      // Bodies.
      for (const [name, contentType, body] of RAW_BODIES)
        add(name, { headers: { ...headers, ...(contentType ? { 'content-type': contentType } : {}) }, body });
      for (const field of new Set([...documentedFields(op), ...bodyFields(req.body)])) {
        for (const [name, value] of FIELD_VALUES) add(`${field} ${name}`, json(withField(req.body, field, value)));
        // An array of the scenario's own kind of item, as long as a body may be.
        const [a, b] = field.split('.');
        const current = b === undefined ? (req.body as Json | undefined)?.[a] : (req.body as Json | undefined)?.[a]?.[b];
        if (Array.isArray(current) && current.length) {
          const item = JSON.stringify(current[0]).length + 1;
          add(`${field} long array`, json(withField(req.body, field, Array(Math.floor((900 * 1024) / item)).fill(current[0]))));
        }
        const huge = (family: string, value: string): Probe => ({
          route: key,
          family: `${field} ${family}`,
          method,
          path: req.path,
          ...json(withField(req.body, field, value)),
        });
        add(`${field} 3 KB string`, {
          ...json(withField(req.body, field, K3)),
          // biome-ignore lint/suspicious/noThenProperty: a body key named `then` is one of the fuzz's cases.
          then: [huge('500 KB string', K500), huge('150,000 wide characters', WIDE)],
        });
      }
    });
    // Paths and methods no row has (the catch-all route).
    for (const [family, method, path] of [
      ['unknown path', 'GET', '/no/such/route'],
      ['unknown method', 'PROPFIND', '/api/v1/profile'],
      ['odd characters', 'GET', '/api/v1/%00/%ZZ/%E2%98%83'],
      ['3 KB path', 'POST', `/${'p'.repeat(3 * 1024)}`],
      ['dot segments', 'GET', '/api/v1/accounts/1/../../../etc/passwd'],
    ] as const) {
      probes.push({ route: DEFAULT_ROUTE, family, method, path, headers: {} });
    }
    probes.sort((a, b) => (a.route < b.route ? -1 : a.route > b.route ? 1 : 0));
  }, 300_000);

  afterAll(async () => {
    await pipeline?.resume();
    for (const [name, value] of Object.entries(restoreEnv)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    agent.destroy();
  });

  it('calls every route of the table as its scenario does', () => {
    expect(broken).toEqual([]);
    expect(new Set(probes.map((p) => p.route)).size).toBeGreaterThan(250);
  });

  it('answers no 5xx, and every 4xx in the JSON error body', async () => {
    const faults: string[] = [];
    const started = Date.now();
    // The answers are the subject, not the events of what was accepted: the pipeline rests meanwhile.
    await pipeline!.pause();
    let sent = 0;
    const probe = async (p: Probe): Promise<void> => {
      let a: Answer;
      sent++;
      try {
        a = await send(baseUrl, p);
      } catch (err) {
        return void faults.push(`${p.route} [${p.family}]: no answer (${(err as Error).message})`);
      }
      const f = fault(a);
      if (f) faults.push(`${p.route} [${p.family}]: ${f} ${a.text.slice(0, 160)}`);
      if (a.status < 300) for (const next of p.then ?? []) await probe(next);
    };
    await pool(probes, 4, probe);
    process.stdout.write(`fuzz: ${sent} requests in ${Date.now() - started} ms\n`);
    expect(faults).toEqual([]);
  }, 600_000);
});
