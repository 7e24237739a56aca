import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFunctions, buildFunctionsSeparately, type FunctionBundles } from '../../infra/build.ts';
import { functionName, routes } from '../../infra/routes.ts';

// The deployed layout: each function bundled in a pass of its own (infra/build.ts). Three routes that share most
// modules, one of them with a dynamic import (the multipart parser): built alone, each loads only its own code
// at cold start, and the bundle imports and names its handler in a fresh Node process. A lazy AWS SDK client (S3, for
// attachments) is a file of its own in `lazy/`, loaded on first use and working alone. A shared module's definitions
// that a function does not use (another route's body schema) are left out, and the handler still runs. The SDK's
// credential sources other than the environment are a lazy file too, and work from it (the container endpoint); of
// the client's package.json the bundle keeps the version its user agent names.

const pick = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)!;
const table = [
  pick('POST', '/api/v1/accounts/{account_id}/conversations/{conversation_id}/messages'),
  pick('GET', '/api/v1/accounts/{account_id}/conversations/{conversation_id}/messages'),
  pick('GET', '/health'),
  pick('POST', '/api/v1/accounts/{account_id}/conversations/{conversation_id}/toggle_status'),
];

/** A function folder's entry and chunks (everything but its lazy files), as one text. */
const codeOutsideLazy = (b: FunctionBundles[string]) =>
  [join(b.dir, 'index.mjs'), ...readdirSync(join(b.dir, 'chunks')).map((c) => join(b.dir, 'chunks', c))]
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');

let dir: string;
let separate: FunctionBundles;
let shared: FunctionBundles;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'separate-bundles-'));
  separate = await buildFunctionsSeparately(join(dir, 'separate'), table);
  shared = buildFunctions(join(dir, 'shared'), table);
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('functions bundled one pass each', () => {
  it('builds the same functions as the single pass, each folder with its entry and chunks', () => {
    expect(Object.keys(separate).sort()).toEqual(Object.keys(shared).sort());
    for (const route of table) {
      const b = separate[functionName(route)];
      expect(existsSync(join(b.dir, 'index.mjs'))).toBe(true);
      for (const chunk of readdirSync(join(b.dir, 'chunks'))) expect(chunk).toMatch(/\.mjs$/);
    }
  });

  it('loads at cold start no more than the single pass does, and keeps a dynamic import apart', () => {
    for (const route of table) {
      const name = functionName(route);
      expect(separate[name].bytes).toBeLessThanOrEqual(shared[name].bytes);
    }
    const create = separate[functionName(table[0])];
    // busboy, imported on the first multipart body only, is in the folder but not in what a cold start loads.
    expect(create.deployedBytes).toBeGreaterThan(create.bytes);
  });

  it('imports in a fresh Node process and exports its handler', () => {
    for (const route of table) {
      const index = join(separate[functionName(route)].dir, 'index.mjs');
      const out = execFileSync(
        process.execPath,
        ['--input-type=module', '-e', `const m = await import(${JSON.stringify(index)}); console.log(typeof m.handler);`],
        {
          env: { ...process.env, TABLE_NAME: 'bundle-test', AWS_REGION: 'us-east-1' },
          encoding: 'utf8',
        },
      );
      expect(out.trim()).toBe('function');
    }
  });

  it('leaves out the definitions of a shared module the function does not use, and the handler runs', () => {
    const name = functionName(table[3]);
    // The assignment body's schema, defined beside the status toggle's in shared/domain/conversations/schemas.ts (a
    // boolean each, so that a failure does not print the bundles).
    const has = (b: FunctionBundles[string], text: string) => codeOutsideLazy(b).includes(text);
    expect(has(shared[name], 'must be User or AgentBot')).toBe(true);
    expect(has(separate[name], 'must be User or AgentBot')).toBe(false);
    expect(has(separate[name], 'must be Unix seconds or an ISO 8601 date-time')).toBe(true);
    // Without a credential the handler answers 401 before any storage call: config, limits, auth and errors ran.
    const index = join(separate[name].dir, 'index.mjs');
    const event = {
      rawPath: '/api/v1/accounts/1/conversations/1/toggle_status',
      headers: {},
      requestContext: { http: { method: 'POST' } },
      pathParameters: { account_id: '1', conversation_id: '1' },
      body: '{"status":"resolved"}',
    };
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(index)}); const r = await m.handler(${JSON.stringify(event)}, {}); console.log(JSON.stringify(r));`,
      ],
      {
        env: {
          ...process.env,
          TABLE_NAME: 'bundle-test',
          AWS_REGION: 'us-east-1',
          LIMIT_ACCOUNT_PER_MINUTE: '0',
          LIMIT_CREDENTIAL_PER_MINUTE: '0',
        },
        encoding: 'utf8',
      },
    );
    const reply = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(reply.statusCode).toBe(401);
    expect(JSON.parse(reply.body)).toMatchObject({ errors: expect.any(Array) });
  });

  it('builds a lazy SDK client apart: the folder holds it whole, the entry imports it on first use', () => {
    const create = separate[functionName(table[0])];
    const lazy = join(create.dir, 'lazy', 's3.mjs');
    expect(existsSync(lazy)).toBe(true);
    const loaded = codeOutsideLazy(create);
    expect(loaded).toMatch(/import\("\.\.?\/lazy\/s3\.mjs"\)/);
    expect(loaded).not.toContain('__lazy__/');
    // The client and the presigner from the one file: a presigned link, made offline.
    const script = `const m = await import(${JSON.stringify(lazy)});
      const c = new m.S3Client({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', forcePathStyle: true, credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
      console.log(await m.getSignedUrl(c, new m.GetObjectCommand({ Bucket: 'b', Key: 'k' }), { expiresIn: 60 }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(out.trim()).toMatch(/^http:\/\/127\.0\.0\.1:9\/b\/k\?.*X-Amz-Signature=[0-9a-f]{64}/);
  });

  it('keeps the credential sources other than the environment in a lazy file, and takes container credentials from it', async () => {
    const health = separate[functionName(table[2])];
    const lazy = join(health.dir, 'lazy', 'credentials.mjs');
    expect(existsSync(lazy)).toBe(true);
    const loaded = codeOutsideLazy(health);
    expect(loaded).toMatch(/import\("\.\.?\/lazy\/credentials\.mjs"\)/);
    // STS's client (and with it its query protocol) came into the cold start with the web identity source before.
    expect(loaded.includes('AWSSecurityTokenServiceV20110615')).toBe(false);
    expect(readFileSync(lazy, 'utf8').includes('AWSSecurityTokenServiceV20110615')).toBe(true);

    // Fargate's way: no keys in the environment, a container endpoint that hands them out (faked on loopback), and the
    // readiness probe's GetItem signed with them (DynamoDB faked on loopback too).
    const listen = (server: Server) =>
      new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
    const credentials = {
      AccessKeyId: 'ASIACONTAINERKEY',
      SecretAccessKey: 'secret',
      Token: 'container-session',
      Expiration: new Date(Date.now() + 3_600_000).toISOString(),
    };
    const asked: string[] = [];
    const endpoint = createServer((req, res) => {
      asked.push(`${req.url} ${req.headers.authorization ?? ''}`);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(credentials));
    });
    const signed: IncomingHttpHeaders[] = [];
    const dynamodb = createServer((req, res) => {
      signed.push(req.headers);
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/x-amz-json-1.0');
        res.end('{}');
      });
    });
    const [credentialsPort, dynamodbPort] = await Promise.all([listen(endpoint), listen(dynamodb)]);
    try {
      const script = `const m = await import(${JSON.stringify(join(health.dir, 'index.mjs'))}); const r = await m.handler({ rawPath: '/health', headers: {}, requestContext: { http: { method: 'GET' } } }, {}); console.log(r.statusCode);`;
      await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
        env: {
          PATH: process.env.PATH,
          HOME: dir,
          AWS_CONFIG_FILE: join(dir, 'no-config'),
          AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
          AWS_REGION: 'us-east-1',
          AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://127.0.0.1:${credentialsPort}/v2/credentials`,
          TABLE_NAME: 'bundle-test',
          DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamodbPort}`,
        },
        encoding: 'utf8',
      });
    } finally {
      endpoint.close();
      dynamodb.close();
    }
    expect(asked[0]).toMatch(/^\/v2\/credentials /);
    expect(signed.length).toBeGreaterThan(0);
    expect(signed[0].authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=ASIACONTAINERKEY\/\d{8}\/us-east-1\/dynamodb\/aws4_request/);
    expect(signed[0]['x-amz-security-token']).toBe('container-session');
    expect(signed[0]['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
    // The client's version, which is all the bundle keeps of its package.json, is still in its user agent.
    const { version } = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../node_modules/@aws-sdk/client-dynamodb/package.json'), 'utf8'),
    );
    expect(signed[0]['user-agent']).toContain(`aws-sdk-js/${version}`);
  });
});
