import type { Context } from 'aws-lambda';
import { config, lambdaRuntime } from './config.ts';

// One JSON line per entry, in the Powertools Logger's shape (this module used it until its ~22 KiB, in every
// function's cold start, was the largest thing a small route carried beyond the bare baseline): level, message,
// timestamp, service, and once the invocation's context is added the cold start flag, function ARN, memory, name
// and request id, then the X-Ray trace id and the entry's own fields. CloudWatch Logs Insights filters on any of
// them (requestId, eventId, …). Errors among the fields become { name, location, message, stack, cause, …own
// fields }, bigints strings, and a value met again inside itself is left out. DEBUG and INFO go to stdout, WARN and
// ERROR to stderr, written directly (Lambda's console would prefix each line with text).

type Fields = Record<string, unknown>;
type Level = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

const RANK = { DEBUG: 0, INFO: 1, WARN: 2, ERROR: 3, SILENT: 4 } as const;

let invocation: Fields = {};
let coldStart = true;

function write(level: Level, message: string, fields: Fields | undefined): void {
  if (RANK[level] < RANK[config().logLevel]) return;
  const entry: Fields = {
    level,
    message,
    timestamp: new Date().toISOString(),
    service: config().serviceName,
    ...invocation,
    xray_trace_id: lambdaRuntime().traceId,
    ...fields,
  };
  for (const key of Object.keys(entry)) if (entry[key] === null || entry[key] === '') delete entry[key];
  const line = `${JSON.stringify(entry, replacer())}\n`;
  (RANK[level] >= RANK.WARN ? process.stderr : process.stdout).write(line);
}

/** JSON.stringify's replacer: errors as objects, bigints as strings, no value inside itself. */
function replacer() {
  const ancestors: unknown[] = [];
  return function (this: unknown, _key: string, value: unknown) {
    const out = value instanceof Error ? errorFields(value) : value;
    if (typeof out === 'bigint') return out.toString();
    if (typeof out === 'object' && out !== null) {
      while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
      if (ancestors.includes(out)) return undefined;
      ancestors.push(out);
    }
    return out;
  };
}

function errorFields(error: Error): Fields {
  const { name, message, stack, cause, ...own } = error as Error & Fields;
  return {
    name,
    location: (stack && /\(([^()]*?):(\d+?):(\d+?)\)\\?$/m.exec(stack)?.slice(1, 3).join(':')) || '',
    message,
    stack,
    cause: cause instanceof Error ? errorFields(cause) : cause,
    ...own,
  };
}

export const log = {
  debug: (m: string, f?: Fields) => write('DEBUG', m, f),
  info: (m: string, f?: Fields) => write('INFO', m, f),
  warn: (m: string, f?: Fields) => write('WARN', m, f),
  error: (m: string, f?: Fields) => write('ERROR', m, f),
};

/** Adds the invocation's context (cold start, function, request id) to every line it logs. */
export function addLogContext(context: Context | undefined): void {
  // The local runtime passes a partial context: only a real one carries what the fields need.
  if (!context?.awsRequestId || !context.functionName) return;
  invocation = {
    // Only an on-demand container's first invocation is a cold start (provisioned concurrency initializes ahead).
    cold_start: coldStart && lambdaRuntime().initializationType === 'on-demand',
    function_arn: context.invokedFunctionArn,
    function_memory_size: context.memoryLimitInMB,
    function_name: context.functionName,
    function_request_id: context.awsRequestId,
  };
  coldStart = false;
}

/** The same as a middy middleware, for the HTTP chain. */
export const logContext = () => ({
  before: async (request: { context: Context }) => addLogContext(request.context),
});
