import { config } from './config.ts';

// One JSON line per entry, so CloudWatch Logs Insights can filter on any field (requestId, eventId, …).
type Level = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
const rank: Record<Level | 'SILENT', number> = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40, SILENT: 99 };

function write(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (rank[level] < rank[config().logLevel]) return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), message, ...fields }, errorReplacer);
  (level === 'ERROR' || level === 'WARN' ? process.stderr : process.stdout).write(line + '\n');
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

export const log = {
  debug: (m: string, f?: Record<string, unknown>) => write('DEBUG', m, f),
  info: (m: string, f?: Record<string, unknown>) => write('INFO', m, f),
  warn: (m: string, f?: Record<string, unknown>) => write('WARN', m, f),
  error: (m: string, f?: Record<string, unknown>) => write('ERROR', m, f),
};
