import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

// `npm start` as a child process, as a newcomer runs it: its printed base URL and token, its signals.

export const ROOT = join(import.meta.dirname, '../..');
export const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');
// What `npm start` runs: the runtime in this one process with tsx's loader. (tsx's CLI would run it in a
// child and give that child 30 ms to acknowledge a relayed SIGTERM before killing it with 143, which a
// busy machine misses.)
export const START = ['--import', 'tsx', 'infra/local/start.ts'];

export interface Started {
  child: ChildProcess;
  output: () => string;
  baseUrl: string;
  token: string;
}

const children: ChildProcess[] = [];

/** Kills (SIGKILL) every child still running: for afterEach. */
export function killStarted(): void {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
}

export function start(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, START, {
    cwd: ROOT,
    // A free port for the incoming-mail SMTP listener: files may start the service side by side.
    env: { ...process.env, LOG_LEVEL: 'WARN', INBOUND_SMTP_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  return new Promise((resolve, reject) => {
    // Generous: tsx compiles the runtime and Java starts cold, and a busy machine (another suite beside
    // this one) can take well over a minute for that. The claim is that it starts, not how fast.
    const timer = setTimeout(() => reject(new Error(`not ready: ${out}`)), 150_000);
    const check = () => {
      const url = out.match(/Service ready at (\S+)/)?.[1];
      const token = out.match(/Platform API token: (\S+)/)?.[1];
      if (url && token) {
        clearTimeout(timer);
        resolve({ child, output: () => out, baseUrl: url, token });
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

/** Sends the signal and resolves with the exit code. */
export function stop(s: Started, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    s.child.once('exit', (code) => resolve(code));
    s.child.kill(signal);
  });
}
