import { spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../infra/local/net.ts';
import { client } from '../../support/runtime.ts';
import { killStarted, ROOT, START, start, stop, TSX } from '../../support/npm-start.ts';

// `npm start` as a newcomer runs it: a child process, its printed base URL and token, its signals.

afterEach(killStarted);

const javaOnPort = (port: number) => spawnSync('pgrep', ['-f', `DynamoDBLocal.jar -port ${port} `]).status === 0;

describe('npm start', () => {
  it('serves the API with the given platform token, persists DATA_DIR, and stops Java on SIGTERM and SIGINT', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cw-data-'));
    try {
      const dynamoPort = await freePort();
      const env = {
        PORT: '0',
        DYNAMODB_PORT: String(dynamoPort),
        PLATFORM_API_TOKEN: 'local-test-platform-token-0123456789',
        DATA_DIR: dataDir,
      };
      const first = await start(env);
      expect(first.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(first.token).toBe(env.PLATFORM_API_TOKEN);
      expect((await client(first.baseUrl).get('/health')).status).toBe(200);
      expect(javaOnPort(dynamoPort)).toBe(true);

      const api = client(first.baseUrl, first.token);
      const account = await api.post('/platform/api/v1/accounts', { name: 'Persisted' });
      expect(account.status).toBe(200);

      // The CLI creates a platform app against the running local runtime and prints its token once.
      const cli = spawnSync(process.execPath, [TSX, 'scripts/platform-app.ts', 'create', '--name', 'cli app'], {
        cwd: ROOT,
        env: { ...process.env, DYNAMODB_PORT: String(dynamoPort) },
        encoding: 'utf8',
      });
      expect(cli.status, cli.stderr).toBe(0);
      const cliToken = cli.stdout.match(/API token \(shown once\): (\S+)/)?.[1];
      expect(cliToken).toBeTruthy();
      const cliApp = client(first.baseUrl, cliToken);
      expect((await cliApp.get('/platform/api/v1/accounts')).body).toEqual([]);
      expect((await cliApp.post('/platform/api/v1/accounts', { name: 'From CLI' })).status).toBe(200);

      expect(await stop(first, 'SIGTERM')).toBe(0);
      expect(javaOnPort(dynamoPort)).toBe(false);

      const second = await start(env);
      const again = client(second.baseUrl, second.token);
      const list = await again.get('/platform/api/v1/accounts');
      expect(list.body.map((a: { name: string }) => a.name)).toEqual(['Persisted']);
      expect(await stop(second, 'SIGINT')).toBe(0);
      expect(javaOnPort(dynamoPort)).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 400_000);

  it('generates a platform token when none is given', async () => {
    const s = await start({ PORT: '0', DYNAMODB_PORT: String(await freePort()), PLATFORM_API_TOKEN: '' });
    expect(s.token.length).toBeGreaterThanOrEqual(32);
    expect((await client(s.baseUrl, s.token).get('/platform/api/v1/accounts')).status).toBe(200);
    expect(await stop(s, 'SIGTERM')).toBe(0);
  }, 200_000);

  it('survives the malformed and stalled bodies that used to kill it, answering each in the error body', async () => {
    const s = await start({ PORT: '0', DYNAMODB_PORT: String(await freePort()), PLATFORM_API_TOKEN: '', BODY_TIMEOUT_MS: '500' });
    const anon = client(s.baseUrl);
    const boundary = 'b0undary';
    // A file part whose closing boundary never comes: busboy fails the file stream, not the parser.
    const cut = `--${boundary}\r\nContent-Disposition: form-data; name="attachments[]"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhalf`;
    const headers = { 'content-type': `multipart/form-data; boundary=${boundary}` };
    for (const path of ['/public/api/v1/inboxes/x/contacts/y/conversations/1/messages', '/api/v1/accounts/1/conversations/1/messages']) {
      const res = await anon.post(path, cut, headers);
      expect(res.status, res.text).toBeGreaterThanOrEqual(400);
      expect(res.status, res.text).toBeLessThan(500);
      expect(res.body).toMatchObject({ description: expect.any(String), errors: [expect.objectContaining({ code: expect.any(String) })] });
    }
    const { port } = new URL(s.baseUrl);
    const stalled = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/accounts/1/contacts',
        headers: { ...headers, 'content-length': '5000' },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d) => (text += String(d)));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.write(cut);
    });
    expect(stalled.status).toBe(408);
    expect(JSON.parse(stalled.text).errors[0].code).toBe('timeout');
    expect((await anon.get('/health')).status).toBe(200);
    expect((await client(s.baseUrl, s.token).get('/platform/api/v1/accounts')).status).toBe(200);
    expect(s.child.exitCode).toBeNull();
    expect(await stop(s, 'SIGTERM')).toBe(0);
  }, 200_000);

  it('answers /health 200 only when ready: a platform call made the moment it does succeeds', async () => {
    const port = await freePort();
    const token = 'readiness-platform-token-0123456789abcdef';
    const started = start({ PORT: String(port), DYNAMODB_PORT: String(await freePort()), PLATFORM_API_TOKEN: token });
    const base = `http://127.0.0.1:${port}`;
    let failed: unknown;
    started.catch((err) => (failed = err));
    for (;;) {
      if (failed) throw failed;
      const res = await fetch(`${base}/health`).catch(() => undefined);
      if (res?.status === 200) break;
      if (res) {
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
        expect(((await res.json()) as { errors: { code: string }[] }).errors[0].code).toBe('unavailable');
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    expect((await client(base, token).get('/platform/api/v1/accounts')).status).toBe(200);
    const s = await started;
    expect(s.baseUrl).toBe(base);
    expect(await stop(s, 'SIGTERM')).toBe(0);
  }, 200_000);

  it('exits with the install command when Java is missing', () => {
    const bin = mkdtempSync(join(tmpdir(), 'cw-bin-'));
    try {
      symlinkSync(process.execPath, join(bin, 'node'));
      const r = spawnSync(process.execPath, START, {
        cwd: ROOT,
        env: { ...process.env, PATH: bin, PORT: '0' },
        encoding: 'utf8',
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('Java');
      expect(r.stderr).toMatch(/apt-get install -y openjdk-17-jre-headless/);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it('answers the CLI without a name with its usage', () => {
    const r = spawnSync(process.execPath, [TSX, 'scripts/platform-app.ts', 'create'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('npm run platform-app -- create --name NAME');
  });
});
