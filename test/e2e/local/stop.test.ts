import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startDynamoDbLocal } from '../../../infra/local/dynamodb-local.ts';
import { LOCAL_DEFAULTS } from '../../../infra/local/runtime.ts';
import { freePort } from '../../../infra/local/net.ts';
import { connectCable } from '../../support/cable.ts';
import { client, seedAccountVia } from '../../support/http.ts';
import { ROOT } from '../../support/npm-start.ts';

// `npm start` as a terminal runs it (npm in a process group of its own, the terminal's foreground job),
// stopped during a burst of requests with a /cable socket open, by each way a stop arrives: Ctrl-C (SIGINT
// to the group), SIGTERM to npm, to node, to the group, and by a caller that signals and exits at once
// (its pipes closed: every later write of the service fails with EPIPE), the terminal closing (SIGHUP).
// Every answer is a 200 or the stopping 503, nothing reaches a stopped DynamoDB Local, the socket's items
// are removed, and npm, node and Java are all gone within 20 s.

const STOP_WITHIN_MS = 20_000;
const PLATFORM_TOKEN = 'stop-test-platform-token-0123456789abcdef';

// The caller: starts `npm start` in a group of its own with its output piped here, relays it, and on a
// line `<pid> <signal>` on its stdin sends that signal (a negative pid: to the group); with `exit` it
// exits at once, closing the pipes npm, node and Java write to.
const CALLER = `
const { spawn } = require('node:child_process');
const npm = spawn('npm', ['start'], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
process.stdout.write('npm pid ' + npm.pid + '\\n');
npm.stdout.pipe(process.stdout, { end: false });
npm.stderr.pipe(process.stdout, { end: false });
npm.on('close', (code, signal) => { process.stdout.write('npm exited ' + code + ' ' + signal + '\\n'); process.exit(0); });
process.stdin.on('data', (line) => {
  const [pid, signal, exit] = String(line).trim().split(' ');
  process.kill(Number(pid), signal);
  if (exit === 'exit') process.exit(0);
});
`;

interface Variant {
  name: string;
  signal: NodeJS.Signals;
  to: 'group' | 'npm' | 'node';
  callerExits?: boolean;
}

const variants: Variant[] = [
  { name: 'Ctrl-C (SIGINT to the group)', signal: 'SIGINT', to: 'group' },
  { name: 'SIGTERM to npm', signal: 'SIGTERM', to: 'npm' },
  { name: 'SIGTERM to node', signal: 'SIGTERM', to: 'node' },
  { name: 'SIGTERM to the group', signal: 'SIGTERM', to: 'group' },
  { name: 'SIGTERM to the group by a caller that exits at once', signal: 'SIGTERM', to: 'group', callerExits: true },
  { name: 'the terminal closing (SIGHUP to the group, its pipes closed)', signal: 'SIGHUP', to: 'group', callerExits: true },
];

/** Running: listed and not a zombie (a process whose parent exited may stay unreaped here). */
function alive(pid: number): boolean {
  const r = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '' && !r.stdout.trim().startsWith('Z');
}

function pidsMatching(pattern: string): number[] {
  const r = spawnSync('pgrep', ['-f', pattern], { encoding: 'utf8' });
  return r.stdout.split('\n').filter(Boolean).map(Number);
}

const dataDir = mkdtempSync(join(tmpdir(), 'cw-stop-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The socket's items (its connection and subscriptions) in the table: pk CABLE#… and CABLESUBS#…, and a socket count above 0. */
async function cableItems(endpoint: string): Promise<string[]> {
  const ddb = new DynamoDBClient({
    endpoint,
    region: LOCAL_DEFAULTS.region,
    credentials: { accessKeyId: LOCAL_DEFAULTS.accessKeyId, secretAccessKey: 'local' },
  });
  try {
    const keys: string[] = [];
    let start: Record<string, any> | undefined;
    do {
      const page = await ddb.send(
        new ScanCommand({
          TableName: LOCAL_DEFAULTS.tableName,
          ExclusiveStartKey: start,
          FilterExpression: 'begins_with(pk, :c)',
          ExpressionAttributeValues: { ':c': { S: 'CABLE' } },
        }),
      );
      // With when it connected and what it held, to tell which run left it. The per-address socket count
      // (CABLEADDR#…, expiring when quiet) stays; it is left only when it still counts an open socket.
      for (const item of page.Items ?? []) {
        if (item.pk.S!.startsWith('CABLEADDR#')) {
          if (Number(item.n?.N ?? 0) !== 0) keys.push(`${item.pk.S} ${item.sk.S} n ${item.n?.N}`);
          continue;
        }
        keys.push(
          `${item.pk.S} ${item.sk.S}${item.connected_at ? ` connected ${new Date(Number(item.connected_at.N)).toISOString()} ${JSON.stringify(item.subscriptions?.L ?? [])}` : ''}`,
        );
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return keys;
  } finally {
    ddb.destroy();
  }
}

interface Run {
  caller: ChildProcess;
  output: () => string;
  npmPid: number;
  baseUrl: string;
  /** The caller has exited (and so printed all it had). */
  exited: Promise<void>;
}

/** `data` null: in memory. */
async function startNpm(dynamodbPort: number, data: string | null = dataDir): Promise<Run> {
  const caller = spawn(process.execPath, ['-e', CALLER], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      DYNAMODB_PORT: String(dynamodbPort),
      DATA_DIR: data ?? '',
      PLATFORM_API_TOKEN: PLATFORM_TOKEN,
      LOG_LEVEL: 'WARN',
      npm_config_update_notifier: 'false',
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  caller.stdout!.on('data', (d) => (out += String(d)));
  const exited = new Promise<void>((resolve) => caller.once('close', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      const npmPid = out.match(/^npm pid (\d+)/m)?.[1];
      if (npmPid) process.kill(-Number(npmPid), 'SIGKILL');
      caller.kill('SIGKILL');
      reject(new Error(`not ready: ${out}`));
    }, 150_000);
    const check = () => {
      const npmPid = out.match(/^npm pid (\d+)/m)?.[1];
      const baseUrl = out.match(/Service ready at (\S+)/)?.[1];
      if (npmPid && baseUrl && /Platform API token/.test(out)) {
        clearTimeout(timer);
        caller.stdout!.off('data', check);
        resolve({ caller, output: () => out, npmPid: Number(npmPid), baseUrl, exited });
      }
    };
    caller.stdout!.on('data', check);
    caller.once('exit', () => reject(new Error(`caller exited: ${out}`)));
  });
}

/** The node process that npm runs: in npm's process group, running start.ts. */
function nodePid(npmPid: number): number {
  const r = spawnSync('ps', ['-eo', 'pid=,pgid=,args='], { encoding: 'utf8' });
  const line = r.stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .find(([pid, pgid, ...args]) => Number(pgid) === npmPid && Number(pid) !== npmPid && args.join(' ').includes('infra/local/start.ts'));
  if (!line) throw new Error(`no node process in npm's group:\n${r.stdout}`);
  return Number(line[0]);
}

interface Answer {
  status: number;
  body: any;
}

/**
 * Requests back to back on each of `lanes` connections (a contact created, the contacts listed) until the
 * service stops answering: a lane ends at its first request without an answer (the port closed).
 */
function burst(baseUrl: string, path: string, token: string, lanes: number) {
  const answers: Answer[] = [];
  const lane = async (n: number) => {
    for (let i = 0; ; i++) {
      const init: RequestInit =
        i % 2
          ? { headers: { api_access_token: token } }
          : {
              method: 'POST',
              headers: { api_access_token: token, 'content-type': 'application/json' },
              body: JSON.stringify({ name: `Burst ${n}-${i}` }),
            };
      let res: Response;
      try {
        res = await fetch(baseUrl + path, { ...init, signal: AbortSignal.timeout(STOP_WITHIN_MS) });
      } catch {
        return;
      }
      const text = await res.text().catch(() => '');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Kept as text: the assertion shows it.
      }
      answers.push({ status: res.status, body });
    }
  };
  return { answers, done: Promise.all(Array.from({ length: lanes }, (_, n) => lane(n))) };
}

describe('npm start stops cleanly whatever receives the signal', () => {
  for (const v of variants) {
    it(v.name, async () => {
      const dynamodbPort = await freePort();
      const javaPattern = `DynamoDBLocal.jar -port ${dynamodbPort} `;
      const run = await startNpm(dynamodbPort);
      const node = nodePid(run.npmPid);
      const java = pidsMatching(javaPattern);
      const everyProcess = [run.npmPid, node, ...java];
      try {
        expect(java.length).toBeGreaterThan(0);
        const dynamodbEndpoint = `http://127.0.0.1:${dynamodbPort}`;
        // The run before this one (same data folder) left none of its socket's items behind.
        expect(await cableItems(dynamodbEndpoint)).toEqual([]);

        const s = await seedAccountVia(run.baseUrl, client(run.baseUrl, PLATFORM_TOKEN), `Stop ${v.name}`);
        const profile = await s.admin.api.get('/api/v1/profile');
        const cable = await connectCable(run.baseUrl);
        await cable.waitFor((f) => f.type === 'welcome');
        const identifier = cable.subscribe({ pubsub_token: profile.body.pubsub_token, account_id: s.accountId, user_id: s.admin.id });
        await cable.waitFor((f) => f.type === 'confirm_subscription' && f.identifier === identifier);
        expect((await cableItems(dynamodbEndpoint)).length).toBeGreaterThanOrEqual(2);

        const load = burst(run.baseUrl, `${s.base}/contacts`, s.admin.token, 4);
        while (load.answers.length < 20) await new Promise((r) => setTimeout(r, 10));

        const target = v.to === 'group' ? -run.npmPid : v.to === 'npm' ? run.npmPid : node;
        const signalledAt = Date.now();
        run.caller.stdin!.write(`${target} ${v.signal}${v.callerExits ? ' exit' : ''}\n`);
        while (everyProcess.some(alive) && Date.now() - signalledAt < STOP_WITHIN_MS + 5_000) await new Promise((r) => setTimeout(r, 100));
        const stoppedIn = Date.now() - signalledAt;
        expect(everyProcess.filter(alive), `still running ${stoppedIn} ms after the signal`).toEqual([]);
        expect(pidsMatching(javaPattern)).toEqual([]);
        expect(stoppedIn).toBeLessThan(STOP_WITHIN_MS);
        await load.done;
        expect((await cable.closed).code).toBeGreaterThan(0);

        // Answers: those of the service up, then the clean 503 of one stopping; never a 500.
        expect(load.answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(20);
        for (const a of load.answers.filter((x) => x.status !== 200)) {
          expect(a.status, JSON.stringify(a.body)).toBe(503);
          expect(a.body).toMatchObject({ description: expect.any(String), errors: [{ code: 'unavailable' }] });
        }
        // What was printed: all of it, unless the caller is gone (then up to the signal).
        await Promise.race([run.exited, new Promise((r) => setTimeout(r, 5_000))]);
        const out = run.output();
        expect(out).not.toMatch(/ECONNREFUSED|uncaught exception|unhandled rejection|handler crashed|not stopped after/);
        if (!v.callerExits) expect(out).toMatch(/npm exited 0 null/);
      } finally {
        for (const pid of [...everyProcess, ...pidsMatching(javaPattern)]) if (alive(pid)) process.kill(pid, 'SIGKILL');
        run.caller.kill('SIGKILL');
      }
    }, 200_000);
  }

  it('exits within 20 s when a part never stops: DynamoDB Local frozen under a socket whose removal waits on it', async () => {
    const dynamodbPort = await freePort();
    const javaPattern = `DynamoDBLocal.jar -port ${dynamodbPort} `;
    // In memory: what the frozen table keeps does not matter here.
    const run = await startNpm(dynamodbPort, null);
    const node = nodePid(run.npmPid);
    const java = pidsMatching(javaPattern);
    const everyProcess = [run.npmPid, node, ...java];
    try {
      const cable = await connectCable(run.baseUrl);
      await cable.waitFor((f) => f.type === 'welcome');
      for (const pid of java) process.kill(pid, 'SIGSTOP');
      const signalledAt = Date.now();
      run.caller.stdin!.write(`${node} SIGTERM\n`);
      while (everyProcess.some(alive) && Date.now() - signalledAt < STOP_WITHIN_MS + 5_000) await new Promise((r) => setTimeout(r, 100));
      const stoppedIn = Date.now() - signalledAt;
      expect(everyProcess.filter(alive), `still running ${stoppedIn} ms after the signal`).toEqual([]);
      expect(pidsMatching(javaPattern)).toEqual([]);
      expect(stoppedIn).toBeLessThan(STOP_WITHIN_MS);
      await Promise.race([run.exited, new Promise((r) => setTimeout(r, 5_000))]);
      expect(run.output()).toMatch(/not stopped after \d+ s, exiting anyway/);
      expect(run.output()).toMatch(/npm exited 0 null/);
    } finally {
      for (const pid of [...everyProcess, ...pidsMatching(javaPattern)]) if (alive(pid)) process.kill(pid, 'SIGKILL');
      run.caller.kill('SIGKILL');
    }
  }, 200_000);

  it('takes DynamoDB Local down with a node process killed outright (SIGKILL), which runs no stop at all', async () => {
    const dynamodbPort = await freePort();
    const javaPattern = `DynamoDBLocal.jar -port ${dynamodbPort} `;
    const run = await startNpm(dynamodbPort, null);
    const node = nodePid(run.npmPid);
    const java = pidsMatching(javaPattern);
    const everyProcess = [run.npmPid, node, ...java];
    try {
      expect(java.length).toBeGreaterThan(0);
      const signalledAt = Date.now();
      run.caller.stdin!.write(`${node} SIGKILL\n`);
      while (everyProcess.some(alive) && Date.now() - signalledAt < STOP_WITHIN_MS + 5_000) await new Promise((r) => setTimeout(r, 100));
      expect(everyProcess.filter(alive), `still running ${Date.now() - signalledAt} ms after the kill`).toEqual([]);
      expect(pidsMatching(javaPattern)).toEqual([]);
      expect(Date.now() - signalledAt).toBeLessThan(STOP_WITHIN_MS);
    } finally {
      for (const pid of [...everyProcess, ...pidsMatching(javaPattern)]) if (alive(pid)) process.kill(pid, 'SIGKILL');
      run.caller.kill('SIGKILL');
    }
  }, 200_000);

  it('leaves no socket item behind in the data folder after the last stop', async () => {
    const ddb = await startDynamoDbLocal({ dataDir: join(dataDir, 'dynamodb') });
    try {
      expect(await cableItems(ddb.endpoint)).toEqual([]);
      // The check can fail: the runs' accounts are there.
      const dbClient = new DynamoDBClient({
        endpoint: ddb.endpoint,
        region: LOCAL_DEFAULTS.region,
        credentials: { accessKeyId: LOCAL_DEFAULTS.accessKeyId, secretAccessKey: 'local' },
      });
      const page = await dbClient.send(new ScanCommand({ TableName: LOCAL_DEFAULTS.tableName, Limit: 5 }));
      expect(page.Items?.length).toBeGreaterThan(0);
      dbClient.destroy();
    } finally {
      await ddb.stop();
    }
  }, 120_000);
});
