import { RemovalPolicy } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/** A function's own log group with a retention, instead of Lambda's implicit one that keeps logs forever. */
export const functionLogGroup = (scope: Construct, functionName: string, retention: logs.RetentionDays = logs.RetentionDays.ONE_MONTH) =>
  new logs.LogGroup(scope, `${functionName}-logs`, { retention, removalPolicy: RemovalPolicy.DESTROY });

/** Lambda runtimes the bundles are built and tested for (esbuild targets node22; 24 runs the same code). */
export const SUPPORTED_RUNTIMES = ['nodejs22.x', 'nodejs24.x'] as const;

export function checkRuntime(runtime: lambda.Runtime): lambda.Runtime {
  if (!(SUPPORTED_RUNTIMES as readonly string[]).includes(runtime.name)) {
    throw new Error(`Unsupported Lambda runtime ${runtime.name}: use one of ${SUPPORTED_RUNTIMES.join(', ')}`);
  }
  return runtime;
}

/** What every function of the service shares, whichever construct makes it. */
export interface FunctionSettings {
  runtime: lambda.Runtime;
  memorySize: number;
  logRetention: logs.RetentionDays;
  /** X-Ray active tracing. */
  tracing: boolean;
  logLevel: string;
}

const APPLICATION_LOG_LEVEL: Record<string, lambda.ApplicationLogLevel> = {
  DEBUG: lambda.ApplicationLogLevel.DEBUG,
  INFO: lambda.ApplicationLogLevel.INFO,
  WARN: lambda.ApplicationLogLevel.WARN,
  ERROR: lambda.ApplicationLogLevel.ERROR,
  SILENT: lambda.ApplicationLogLevel.FATAL,
};

/** Function options common to every function: runtime, arm64, own log group, JSON log format, tracing. */
export function functionOptions(scope: Construct, name: string, s: FunctionSettings) {
  return {
    logGroup: functionLogGroup(scope, name, s.logRetention),
    runtime: checkRuntime(s.runtime),
    architecture: lambda.Architecture.ARM_64,
    memorySize: s.memorySize,
    tracing: s.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
    // Lambda's own lines (START, REPORT, errors) as JSON too, so one Logs Insights query reads them all.
    loggingFormat: lambda.LoggingFormat.JSON,
    applicationLogLevelV2: APPLICATION_LOG_LEVEL[s.logLevel] ?? lambda.ApplicationLogLevel.INFO,
    systemLogLevelV2: lambda.SystemLogLevel.INFO,
  } satisfies Partial<lambda.FunctionProps>;
}
