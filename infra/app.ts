import { App } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { buildFunctionsSeparately } from './build.ts';
import type { LogLevel } from './constructs/chatwoot-service.ts';
import { ServiceStack } from './service-stack.ts';

// CDK entry (cdk.json: `npx tsx infra/app.ts`). Bundles first, each function in an esbuild pass of its own, then the stack
// takes the bundle folders as assets. Env-agnostic and lookup-free, so synth needs no credentials.
// Every setting is a context value; another CDK app imports the ChatwootService construct instead.
//   npx cdk deploy -c alarmEmail=ops@example.com -c tags=app=support,team=cx -c runtime=nodejs24.x
const app = new App();
const ctx = (name: string): string | undefined => app.node.tryGetContext(name) ?? undefined;
const number = (name: string) => (ctx(name) === undefined ? undefined : Number(ctx(name)));
const runtime = ctx('runtime');

new ServiceStack(app, ctx('stackName') ?? 'ChatwootServerless', {
  bundles: await buildFunctionsSeparately(),
  logLevel: ctx('logLevel') as LogLevel | undefined,
  accessLogs: ctx('accessLogs') !== 'false',
  alarmEmail: ctx('alarmEmail'),
  runtime: runtime ? new lambda.Runtime(runtime, lambda.RuntimeFamily.NODEJS) : undefined,
  memorySize: number('memorySize'),
  corsOrigins: ctx('corsOrigins')?.split(','),
  domainName: ctx('domainName'),
  certificateArn: ctx('certificateArn'),
  publicBaseUrl: ctx('publicBaseUrl'),
  mailerSenderEmail: ctx('mailerSenderEmail'),
  frontendUrl: ctx('frontendUrl'),
  inboundEmail: { domain: ctx('inboundEmailDomain'), relay: ctx('inboundEmailRelay') === 'true' ? true : undefined },
  slimActivityIndex: ctx('slimActivityIndex') === 'true' ? true : undefined,
  cableTransport: ctx('cableTransport') as 'fargate' | 'websocket-api' | undefined,
  cableTasks: number('cableTasks'),
  cablePingerShards: number('cablePingerShards'),
  captain: { endpoint: ctx('captainOpenAiEndpoint'), model: ctx('captainOpenAiModel') },
  tags: ctx('tags')
    ? Object.fromEntries(
        ctx('tags')!
          .split(',')
          .map((pair) => pair.split('=') as [string, string]),
      )
    : undefined,
  limits: {
    accountPerMinute: number('limitAccountPerMinute'),
    accountBurst: number('limitAccountBurst'),
    credentialPerMinute: number('limitCredentialPerMinute'),
    credentialBurst: number('limitCredentialBurst'),
    filePerMinute: number('limitFilePerMinute'),
    fileBurst: number('limitFileBurst'),
    syncPercent: number('limitSyncPercent'),
  },
  throttle: ctx('rateLimit')
    ? { rateLimit: number('rateLimit')!, burstLimit: number('burstLimit') ?? 2 * number('rateLimit')! }
    : undefined,
});
