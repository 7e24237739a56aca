import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { config } from './config.ts';

// Powertools Logger: one JSON line per entry (level, message, timestamp, service, and when deployed the
// cold start flag, function name, request id and X-Ray trace id), so CloudWatch Logs Insights can filter
// on any field (requestId, eventId, …). The `log` API stays ours, so call sites do not know the library.

let logger: Logger | undefined;

function instance(): Logger {
  logger ??= new Logger({ serviceName: config().serviceName, logLevel: config().logLevel });
  return logger;
}

type Fields = Record<string, unknown>;

export const log = {
  debug: (m: string, f?: Fields) => instance().debug(m, f ?? {}),
  info: (m: string, f?: Fields) => instance().info(m, f ?? {}),
  warn: (m: string, f?: Fields) => instance().warn(m, f ?? {}),
  error: (m: string, f?: Fields) => instance().error(m, f ?? {}),
};

/** Adds the invocation's context (cold start, function, request id) to every line it logs. */
export function addLogContext(context: Context | undefined): void {
  // The local runtime passes a partial context: only a real one carries what the fields need.
  if (context?.awsRequestId && context.functionName) instance().addContext(context);
}

/** The same as a middy middleware, for the HTTP chain. */
export const logContext = () => ({
  before: async (request: { context: Context }) => addLogContext(request.context),
});
