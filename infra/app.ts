import { App } from 'aws-cdk-lib';
import { buildFunctions } from './build.ts';
import { ServiceStack } from './service-stack.ts';

// CDK entry (cdk.json: `npx tsx infra/app.ts`). Bundles first, in one esbuild pass, then the stack
// takes the bundle folders as assets. Env-agnostic and lookup-free, so synth needs no credentials.
//   npx cdk synth -c stackName=Support -c logLevel=DEBUG
const app = new App();
new ServiceStack(app, app.node.tryGetContext('stackName') ?? 'ChatwootServerless', {
  bundles: buildFunctions(),
  logLevel: app.node.tryGetContext('logLevel'),
  accessLogs: app.node.tryGetContext('accessLogs') !== 'false',
});
