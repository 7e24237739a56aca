import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resetConfig } from '#shared/config.ts';

// The log lines as CloudWatch Logs Insights reads them: one JSON object per line, Powertools Logger's shape.

type Line = { stream: 'stdout' | 'stderr'; entry: Record<string, unknown> };

async function logged(env: Record<string, string | undefined>, run: (m: typeof import('#shared/log.ts')) => void): Promise<Line[]> {
  const saved = { ...process.env };
  Object.assign(process.env, { TABLE_NAME: 't', ...env });
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
  resetConfig();
  vi.resetModules(); // a fresh module: its cold start flag is per container
  const m = await import('#shared/log.ts');
  const lines: Line[] = [];
  const capture = (stream: Line['stream']) => (chunk: string | Uint8Array) => {
    for (const l of String(chunk).split('\n')) if (l) lines.push({ stream, entry: JSON.parse(l) });
    return true;
  };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture('stdout'));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture('stderr'));
  try {
    run(m);
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.env = saved;
    resetConfig();
  }
  return lines;
}

const context = (requestId: string) =>
  ({
    awsRequestId: requestId,
    functionName: 'api-accounts-show',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:api-accounts-show',
    memoryLimitInMB: '1024',
  }) as Context;

afterEach(() => vi.restoreAllMocks());

describe('log lines', () => {
  it('writes level, message, timestamp, service and the fields; DEBUG/INFO to stdout, WARN/ERROR to stderr', async () => {
    const lines = await logged({ LOG_LEVEL: 'DEBUG', SERVICE_NAME: 'Support', _X_AMZN_TRACE_ID: undefined }, ({ log }) => {
      log.debug('d', { inboxId: 3 });
      log.info('i');
      log.warn('w', { empty: '', none: null, nothing: undefined, zero: 0 });
      log.error('e');
    });
    expect(lines.map((l) => [l.stream, l.entry.level, l.entry.message])).toEqual([
      ['stdout', 'DEBUG', 'd'],
      ['stdout', 'INFO', 'i'],
      ['stderr', 'WARN', 'w'],
      ['stderr', 'ERROR', 'e'],
    ]);
    expect(lines[0].entry).toEqual({ level: 'DEBUG', message: 'd', timestamp: expect.any(String), service: 'Support', inboxId: 3 });
    expect(new Date(lines[0].entry.timestamp as string).toISOString()).toBe(lines[0].entry.timestamp);
    expect(lines[2].entry).toEqual({ level: 'WARN', message: 'w', timestamp: expect.any(String), service: 'Support', zero: 0 });
  });

  it('leaves out what is below LOG_LEVEL, and everything when SILENT', async () => {
    const warn = await logged({ LOG_LEVEL: 'WARN' }, ({ log }) => {
      log.debug('d');
      log.info('i');
      log.warn('w');
      log.error('e');
    });
    expect(warn.map((l) => l.entry.message)).toEqual(['w', 'e']);
    const silent = await logged({ LOG_LEVEL: 'SILENT' }, ({ log }) => log.error('e'));
    expect(silent).toEqual([]);
  });

  it('adds the invocation context and the X-Ray trace id; cold start only on the first on-demand invocation', async () => {
    const lines = await logged(
      {
        LOG_LEVEL: 'INFO',
        AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
        _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=557abcec3ee5a047;Sampled=1',
      },
      ({ log, addLogContext }) => {
        addLogContext(context('r1'));
        log.info('first');
        addLogContext(context('r2'));
        log.info('second');
        addLogContext({ awsRequestId: 'local' } as Context); // the local runtime's partial context changes nothing
        log.info('third');
      },
    );
    expect(lines[0].entry).toMatchObject({
      cold_start: true,
      function_arn: 'arn:aws:lambda:us-east-1:123456789012:function:api-accounts-show',
      function_memory_size: '1024',
      function_name: 'api-accounts-show',
      function_request_id: 'r1',
      xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793',
    });
    expect(lines[1].entry).toMatchObject({ cold_start: false, function_request_id: 'r2' });
    expect(lines[2].entry).toMatchObject({ cold_start: false, function_request_id: 'r2' });
    const provisioned = await logged(
      { LOG_LEVEL: 'INFO', AWS_LAMBDA_INITIALIZATION_TYPE: 'provisioned-concurrency' },
      ({ log, addLogContext }) => {
        addLogContext(context('r1'));
        log.info('first');
      },
    );
    expect(provisioned[0].entry.cold_start).toBe(false);
  });

  it('writes errors as objects (with their cause and own fields), bigints as strings, and no value inside itself', async () => {
    // Made in a named function: `location` is the first stack frame naming a file in parentheses.
    const made = (message: string, cause?: Error) => new Error(message, { cause });
    const error = Object.assign(made('send failed', made('socket closed')), { status: 502 });
    const loop: Record<string, unknown> = { id: 1 };
    loop.self = loop;
    const lines = await logged({ LOG_LEVEL: 'INFO' }, ({ log }) => log.error('failed', { error, big: 12345678901234567890n, loop }));
    const e = lines[0].entry;
    expect(e.error).toEqual({
      name: 'Error',
      location: expect.stringMatching(/log\.test\.ts:\d+$/),
      message: 'send failed',
      stack: expect.stringContaining('Error: send failed'),
      cause: { name: 'Error', location: expect.stringMatching(/log\.test\.ts:\d+$/), message: 'socket closed', stack: expect.any(String) },
      status: 502,
    });
    expect(e.big).toBe('12345678901234567890');
    expect(e.loop).toEqual({ id: 1 });
  });
});
